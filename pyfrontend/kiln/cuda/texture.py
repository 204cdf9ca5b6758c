"""Texture and surface memory, as cupy.cuda.texture (docs/texture.md).

The classes are C++ (runtime/texture.h). On the host backend a CUDAarray is
host memory and kernels' tex1D/tex2D/tex3D/surf*D fetches are emulated with
the GPU's results, its 9-bit linear filtering included."""
from kiln._core._texture import (ChannelFormatDescriptor, CUDAarray, ResourceDescriptor, TextureDescriptor,
                                 TextureObject, SurfaceObject)

__all__ = ["ChannelFormatDescriptor", "CUDAarray", "ResourceDescriptor", "TextureDescriptor", "TextureObject",
           "SurfaceObject"]
