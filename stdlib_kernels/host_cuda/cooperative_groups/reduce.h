// The host backend's <cooperative_groups/reduce.h>: cg::reduce, cg::plus,
// cg::less, cg::greater (kiln/host_cooperative_groups.h).
#pragma once

#include "kiln/host_cooperative_groups.h"
