// The host backend's <cooperative_groups.h> (kiln/host_cooperative_groups.h).
// Note [Host CUDA headers] in runtime/host/cpu_compiler.cpp.
#pragma once

#include "kiln/host_cooperative_groups.h"
