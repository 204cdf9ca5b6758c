// The host backend's <cuda_fp16.h>: __half, __half2 and their intrinsics over
// kiln::half (kiln/fp16_api.h). Note [Host CUDA headers] in
// runtime/host/cpu_compiler.cpp.
#pragma once

#include "kiln/fp16_api.h"
