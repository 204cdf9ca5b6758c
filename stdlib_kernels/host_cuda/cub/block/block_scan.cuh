// The host backend's <cub/block/block_scan.cuh>: CUB's block and warp collectives
// (kiln/host_cub.h). Note [Host CUDA headers] in runtime/host/cpu_compiler.cpp.
#pragma once

#include "kiln/host_cub.h"
