// A stand-in for libcuda.so.1 (host memory, calls counted) that lets the cuda
// backend's logic run on machines without a GPU: contexts per thread, error
// mapping, the dynamic-shared-memory opt-in, launch checks. Only the entry
// points kiln resolves exist. Built and used by run.sh in this folder; not
// part of the CMake build (tests/cpp/*.cpp does not glob subfolders).
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <string>
#include <map>
extern "C" {
typedef int R;
struct Ctx { int dev; };
static Ctx ctxs[2] = {{0}, {1}};
static thread_local Ctx* cur = nullptr;
int fake_retains = 0, fake_set_current = 0, fake_get_current = 0, fake_launches = 0, fake_setattr = 0, fake_setattr_value = 0;
unsigned fake_last_flags = 0; int fake_last_ctx_dev = -1;
R cuInit(unsigned) { return 0; }
R cuDriverGetVersion(int* v) { *v = 13000; return 0; }
R cuGetErrorName(R e, const char** s) { static std::map<int,const char*> m{{1,"CUDA_ERROR_INVALID_VALUE"},{2,"CUDA_ERROR_OUT_OF_MEMORY"},{500,"CUDA_ERROR_NOT_FOUND"},{600,"CUDA_ERROR_NOT_READY"},{700,"CUDA_ERROR_ILLEGAL_ADDRESS"},{209,"CUDA_ERROR_NO_BINARY_FOR_GPU"}}; auto it=m.find(e); if(it==m.end()) return 1; *s=it->second; return 0; }
R cuGetErrorString(R e, const char** s) { *s = "fake description"; return 0; }
R cuDeviceGetCount(int* n) { *n = 2; return 0; }
R cuDeviceGet(int* d, int o) { if (o<0||o>1) return 101; *d = o; return 0; }
R cuDeviceGetAttribute(int* v, int a, int d) { switch(a){case 75:*v=9;break;case 76:*v=0;break;case 16:*v=132;break;case 1:*v=1024;break;case 97:*v=232448;break;case 10:*v=32;break;default:return 1;} return 0; }
R cuDeviceGetName(char* n, int len, int d) { snprintf(n, len, "Fake H100 #%d", d); return 0; }
R cuDeviceTotalMem_v2(size_t* b, int) { *b = size_t(80) << 30; return 0; }
R cuDevicePrimaryCtxRetain(Ctx** c, int d) { ++fake_retains; *c = &ctxs[d]; return 0; }
R cuDevicePrimaryCtxRelease_v2(int) { return 0; }
R cuCtxSetCurrent(Ctx* c) { ++fake_set_current; cur = c; return 0; }
R cuCtxGetCurrent(Ctx** c) { ++fake_get_current; *c = cur; return 0; }
R cuCtxSynchronize() { return cur ? 0 : 201; }
R cuMemGetInfo_v2(size_t* f, size_t* t) { if(!cur) return 201; *f = 1000; *t = 2000; return 0; }
R cuMemAlloc_v2(unsigned long long* p, size_t n) { if(!cur) return 201; if (n > (size_t(1)<<40)) return 2; fake_last_ctx_dev = cur->dev; *p = (unsigned long long)malloc(n); return 0; }
R cuMemFree_v2(unsigned long long p) { free((void*)p); return 0; }
R cuMemHostAlloc(void** p, size_t n, unsigned f) { fake_last_flags = f; *p = malloc(n); return 0; }
R cuMemFreeHost(void* p) { free(p); return 0; }
R cuMemcpyHtoDAsync_v2(unsigned long long d, const void* s, size_t n, void*) { memcpy((void*)d, s, n); return 0; }
R cuMemcpyDtoHAsync_v2(void* d, unsigned long long s, size_t n, void*) { memcpy(d, (void*)s, n); return 0; }
R cuMemcpyDtoDAsync_v2(unsigned long long d, unsigned long long s, size_t n, void*) { memcpy((void*)d, (void*)s, n); return 0; }
R cuMemsetD8Async(unsigned long long d, unsigned char v, size_t n, void*) { memset((void*)d, v, n); return 0; }
struct Obj { unsigned flags; int state; };
R cuStreamCreate(Obj** s, unsigned f) { *s = new Obj{f, 0}; fake_last_flags = f; return 0; }
R cuStreamDestroy_v2(Obj* s) { delete s; return 0; }
R cuStreamSynchronize(Obj*) { return 0; }
R cuStreamQuery(Obj* s) { return s && s->state ? 600 : 0; }
R cuStreamWaitEvent(Obj*, Obj*, unsigned f) { return f == 0 ? 0 : 1; }
R cuEventCreate(Obj** e, unsigned f) { *e = new Obj{f, 0}; fake_last_flags = f; return 0; }
R cuEventDestroy_v2(Obj* e) { delete e; return 0; }
R cuEventRecord(Obj* e, Obj*) { e->state = 1; return 0; }
R cuEventSynchronize(Obj*) { return 0; }
R cuEventQuery(Obj* e) { return e->state == 2 ? 600 : 0; }
R cuEventElapsedTime_v2(float* ms, Obj* a, Obj* b) { if ((a->flags | b->flags) & 2) return 400; *ms = 1.5f; return 0; }
R cuModuleLoadData(void** m, const void* img) { if (memcmp(img, "\x7f" "ELF", 4) != 0 && strncmp((const char*)img, "//", 2) != 0) return 209; *m = new int(1); return 0; }
R cuModuleUnload(void* m) { delete (int*)m; return 0; }
static int fn_add, fn_big;
R cuModuleGetFunction(void** f, void*, const char* name) { if (!strcmp(name, "my_add")) { *f = &fn_add; return 0; } if (!strcmp(name, "big")) { *f = &fn_big; return 0; } return 500; }
R cuFuncSetAttribute(void*, int a, int v) { ++fake_setattr; fake_setattr_value = v; return (a == 8 && v <= 232448) ? 0 : 1; }
R cuFuncGetAttribute(int* v, int a, void* f) { if (!f) return 400; *v = a == 0 ? 1024 : a == 4 ? 18 : a == 8 ? fake_setattr_value : 0; return 0; }
static float fake_global[8];
R cuModuleGetGlobal_v2(unsigned long long* p, size_t* n, void*, const char* name) { if (strcmp(name, "table")) return 500; *p = (unsigned long long)fake_global; *n = sizeof(fake_global); return 0; }
R cuFuncGetParamInfo(void* f, size_t i, size_t* off, size_t* sz) { if (i >= 4) return 1; *off = i * 8; *sz = i == 3 ? 4 : 8; return 0; }
R cuLaunchKernel(void* f, unsigned, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned smem, void*, void** args, void** extra) { ++fake_launches; if (extra) return 1; if (f == &fn_big && smem > 48*1024 && fake_setattr_value < (int)smem) return 1; if (bx == 999) return 701; return 0; }
}
