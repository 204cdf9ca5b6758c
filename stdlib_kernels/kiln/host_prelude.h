// What the host backend includes before every kernel's source (-include
// kiln/host_prelude.h): the host execution model (host_kernel.h) and the
// engine headers that kiln's generated kernels include. One header, so that
// it is parsed once, as a precompiled header (Note [Host precompiled
// prelude], runtime/host/cpu_compiler.cpp); a kernel's own #include of these
// is then a no-op. NVRTC and hiprtc never see it.
#pragma once

#include "kiln/host_kernel.h"
#include "kiln/host_texture.h"  // tex1D ... surf3Dwrite over kiln.cuda.texture objects

#include "kiln/elementwise.h"
#include "kiln/reduction.h"
#include "kiln/ufunc_math.h"
