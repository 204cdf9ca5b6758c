"""kiln.cuda.Device: a device, and a context manager that makes it current."""
from kiln import _core
from kiln.cuda._synchronize import check_synchronize


class Device:
    """Device ``device`` (default: the current one). ``with Device(1): ...``
    makes it current for the block and restores the previous one after."""

    def __init__(self, device=None):
        if device is None:
            device = _core.get_device()
        device = int(device)
        count = _core.get_device_count()
        if not 0 <= device < count:
            raise ValueError("device %d does not exist: %d device%s present"
                             % (device, count, "" if count == 1 else "s"))
        self.id = device
        self._previous = []

    def use(self):
        """Make this device current for this thread."""
        _core.set_device(self.id)

    def synchronize(self):
        """Wait until all work queued on this device has finished."""
        check_synchronize()
        with self:
            _core.synchronize_device()

    @property
    def compute_capability(self):
        """'90' for compute capability 9.0 (the host backend reports '0')."""
        p = _core.device_properties(self.id)
        return "%d%d" % (p["major"], p["minor"]) if p["major"] else "0"

    @property
    def attributes(self):
        """Every cudaDevAttr* of kiln.cuda.runtime for this device, by name
        without the prefix: ``{'MaxThreadsPerBlock': 1024, ...}``."""
        from kiln.cuda import runtime
        return {k[11:]: runtime.deviceGetAttribute(v, self.id) for k, v in vars(runtime).items()
                if k.startswith("cudaDevAttr")}

    @property
    def pci_bus_id(self):
        """'0000:3B:00.0': the device's PCI domain, bus, device and function."""
        return _core._rt_device_pci_bus_id(self.id)

    @classmethod
    def from_pci_bus_id(cls, pci_bus_id):
        """The device at PCI bus id ``pci_bus_id`` (as pci_bus_id gives it)."""
        return cls(_core._rt_device_by_pci_bus_id(pci_bus_id))

    @property
    def cublas_handle(self):
        """This thread's cuBLAS handle of this device, as an integer."""
        with self:
            return _core._cublas_handle()

    @property
    def cusolver_handle(self):
        """This thread's cuSOLVER (dense) handle of this device, as an integer."""
        with self:
            return _core._cusolver_handle()

    @property
    def name(self):
        return _core.device_properties(self.id)["name"]

    @property
    def mem_info(self):
        with self:
            return tuple(_core.mem_get_info())

    def __enter__(self):
        self._previous.append(_core.get_device())
        _core.set_device(self.id)
        return self

    def __exit__(self, *exc):
        _core.set_device(self._previous.pop())
        return False

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("kiln.Device", self.id))

    def __int__(self):
        return self.id

    def __repr__(self):
        return "<CUDA Device %d>" % self.id


def get_cublas_handle():
    """The current device's cuBLAS handle for this thread."""
    return Device().cublas_handle


def get_cusolver_handle():
    """The current device's cuSOLVER handle for this thread."""
    return Device().cusolver_handle
