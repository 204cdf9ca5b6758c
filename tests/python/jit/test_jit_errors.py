"""Golden tests of transpile errors: each wrong program's exception type and
its whole message (file:line:col, the rule broken, the source line and the
caret under the offending expression, and notes)."""
import math

import numpy
import pytest

import kiln
from kiln import jit

LIMIT = [1, 2]

def f32(n=4):
    return kiln.zeros(n, dtype=kiln.float32)

def f32_2d():
    return kiln.zeros((2, 3), dtype=kiln.float32)

def i8():
    return kiln.zeros(4, dtype=kiln.int8)

# (name, source, args)
PROGRAMS = [
("try_statement", '''
def k(x):
    try:
        x[0] = 1
    except Exception:
        pass
''', lambda: (f32(),)),
("for_over_list", '''
def k(x):
    for v in [1, 2, 3]:
        x[0] = v
''', lambda: (f32(),)),
("for_over_array", '''
def k(x):
    for v in x:
        x[0] = v
''', lambda: (f32(),)),
("array_then_float", '''
def k(x, y):
    n = x
    y[0] = 1.0
    n = 2.5
''', lambda: (f32(), f32())),
("use_before_assignment", '''
def k(x, n):
    for i in range(n):
        if i > 0:
            x[i] = prev
        prev = x[i]
''', lambda: (f32(), 4)),
("maybe_unassigned_branch", '''
def k(x, n):
    if n > 2:
        s = 1.0
    x[0] = s
''', lambda: (f32(), 4)),
("undefined_name", '''
def k(x):
    x[0] = undefined_thing + 1
''', lambda: (f32(),)),
("lambda", '''
def k(x):
    f = lambda v: v + 1
    x[0] = 1
''', lambda: (f32(),)),
("while_else", '''
def k(x):
    i = 0
    while i < 3:
        i += 1
    else:
        x[0] = 1
''', lambda: (f32(),)),
("too_few_indices", '''
def k(x):
    x[0] = 1.0
''', lambda: (f32_2d(),)),
("float_index", '''
def k(x):
    i = 1.5
    x[i] = 1.0
''', lambda: (f32(),)),
("whole_array_arithmetic", '''
def k(x, y):
    y[0] = x + 1
''', lambda: (f32(), f32())),
("kernel_returns_value", '''
def k(x):
    return x[0]
''', lambda: (f32(),)),
("unsupported_math_function", '''
def k(x):
    x[0] = math.factorial(3)
''', lambda: (f32(),)),
("atomic_on_int8", '''
def k(x):
    jit.atomic_add(x, 0, 1)
''', lambda: (i8(),)),
("shared_memory_runtime_size", '''
def k(x, n):
    buf = jit.shared_memory(kiln.float32, n)
    buf[0] = 1.0
''', lambda: (f32(), 4)),
("recursion", '''
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)

def k(x):
    x[0] = fact(x[1])   # fact(3) would run when the kernel is imported (Note [Compile-time calls])
''', lambda: (f32(),)),
("default_parameter", '''
def k(x, n=4):
    x[0] = n
''', lambda: (f32(), 4)),
("string_value", '''
def k(x):
    s = "text"
    x[0] = 1
''', lambda: (f32(),)),
("complex_into_float_array", '''
def k(x):
    x[0] = 1 + 2j
''', lambda: (f32(),)),
("is_comparison", '''
def k(x):
    if x[0] is None:
        x[0] = 1
''', lambda: (f32(),)),
("slice", '''
def k(x):
    x[1:3] = 0
''', lambda: (f32(),)),
("opaque_global", '''
def k(x):
    x[0] = LIMIT
''', lambda: (f32(),)),
("device_function_arity", '''
def helper(a, b):
    return a + b

def k(x):
    x[0] = helper(1)
''', lambda: (f32(),)),
("bitwise_on_float", '''
def k(x):
    x[0] = x[1] & 3
''', lambda: (f32(),)),
("range_of_float", '''
def k(x):
    for i in range(2.5):
        x[0] = i
''', lambda: (f32(),)),
("array_attribute", '''
def k(x):
    x[0] = x.T
''', lambda: (f32(),)),
("tuple_unpack_mismatch", '''
def k(x):
    a, b = 1, 2, 3
    x[0] = a
''', lambda: (f32(),)),
("with_statement", '''
def k(x):
    with open("f") as f:
        x[0] = 1
''', lambda: (f32(),)),
("return_type_conflict", '''
def pick(v):
    if v > 0:
        return 1.5
    return (1, 2)

def k(x):
    x[0] = pick(x[1])
''', lambda: (f32(),)),("device_function_falls_off", '''
def positive(v):
    if v > 0:
        return v

def k(x):
    x[0] = positive(x[1])
''', lambda: (f32(),)),
("int_constant_too_big", '''
def k(x):
    x[0] = 2 ** 100 // 3
''', lambda: (f32(),)),
("int_constant_into_int8", '''
def k(x):
    x[0] = 300
''', lambda: (i8(),)),
("int_constant_meets_int8", '''
def k(x):
    x[0] = x[1] * 2 + 128
''', lambda: (i8(),)),
]


def _make(name, source):
    filename = "golden_%s.py" % name
    ns = {"kiln": kiln, "jit": jit, "math": math, "numpy": numpy, "LIMIT": LIMIT}
    exec(compile(source, filename, "exec"), ns)
    return jit.rawkernel(source=source)(ns["k"])

EXPECTED = {
    'try_statement': (NotImplementedError, 'golden_try_statement.py:3:5: `try` is not supported in kernels\n        try:\n        ^'),
    'for_over_list': (NotImplementedError, 'golden_for_over_list.py:3:14: `for` loops must iterate over `range(...)`; got a list\n        for v in [1, 2, 3]:\n                 ^~~~~~~~~'),
    'for_over_array': (NotImplementedError, 'golden_for_over_array.py:3:14: `for` loops must iterate over `range(...)`; got a float32 array (1-d)\n        for v in x:\n                 ^'),
    'array_then_float': (TypeError, 'golden_array_then_float.py:5:5: Data type mismatch of variable: `n` is a float32 array (1-d) at line 3 but a float64 (a Python float) at line 5; a local keeps one type in a kernel\n        n = 2.5\n        ^\ngolden_array_then_float.py:3:5: note: `n` is assigned a float32 array (1-d) here\n        n = x\n        ^'),
    'use_before_assignment': (UnboundLocalError, 'golden_use_before_assignment.py:5:20: local `prev` may be used before it is assigned: some path reaches this line without assigning it (a loop body may run zero times; a branch may not run); assign it before the loop or branch\n                x[i] = prev\n                       ^~~~\ngolden_use_before_assignment.py:6:9: note: `prev` is assigned here\n            prev = x[i]\n            ^~~~'),
    'maybe_unassigned_branch': (UnboundLocalError, 'golden_maybe_unassigned_branch.py:5:12: local `s` may be used before it is assigned: some path reaches this line without assigning it (a loop body may run zero times; a branch may not run); assign it before the loop or branch\n        x[0] = s\n               ^\ngolden_maybe_unassigned_branch.py:4:9: note: `s` is assigned here\n            s = 1.0\n            ^'),
    'undefined_name': (NameError, 'golden_undefined_name.py:3:12: Unbound name: undefined_thing (name `undefined_thing` is not defined)\n        x[0] = undefined_thing + 1\n               ^~~~~~~~~~~~~~~'),
    'lambda': (NotImplementedError, 'golden_lambda.py:3:9: `lambda` is not supported in kernels\n        f = lambda v: v + 1\n            ^~~~~~~~~~~~~~~'),
    'while_else': (NotImplementedError, 'golden_while_else.py:4:5: `while ... else` is not supported in kernels\n        while i < 3:\n        ^'),
    'too_few_indices': (TypeError, 'golden_too_few_indices.py:3:5: `x` is indexed with fewer indices than it has dimensions: that is a view of the remaining axes, which takes no value; index every axis to assign an element\n        x[0] = 1.0\n        ^~~~'),
    'float_index': (TypeError, 'golden_float_index.py:4:7: array indices must be integers, got a float64 (a Python float)\n        x[i] = 1.0\n          ^'),
    'whole_array_arithmetic': (TypeError, 'golden_whole_array_arithmetic.py:3:12: `+` on whole arrays is not supported in kernels; index an element (got a float32 array (1-d))\n        y[0] = x + 1\n               ^~~~~'),
    'kernel_returns_value': (TypeError, 'golden_kernel_returns_value.py:3:12: a kernel cannot return a value; write results into an array argument\n        return x[0]\n               ^~~~'),
    'unsupported_math_function': (NotImplementedError, 'golden_unsupported_math_function.py:3:12: `math.factorial` is not supported in kernels\n        x[0] = math.factorial(3)\n               ^~~~~~~~~~~~~~'),
    'atomic_on_int8': (TypeError, 'golden_atomic_on_int8.py:3:20: `kiln.jit.atomic_add` is not available for int8 arrays; it takes int32, uint32, int64, uint64, float16, float32, float64, complex64, complex128\n        jit.atomic_add(x, 0, 1)\n                       ^'),
    'shared_memory_runtime_size': (ValueError, 'golden_shared_memory_runtime_size.py:3:43: `kiln.jit.shared_memory`: the size must be a positive constant integer (or None for memory sized at launch by shared_mem=)\n        buf = jit.shared_memory(kiln.float32, n)\n                                              ^'),
    'recursion': (ValueError, 'golden_recursion.py:5:16: `fact` calls itself: recursion is not supported in kernels (device functions are inlined); rewrite it as a loop\n        return n * fact(n - 1)\n                   ^~~~~~~~~~~'),
    'default_parameter': (NotImplementedError, 'golden_default_parameter.py:2:12: kernel and device function parameters must be plain names (no defaults, *args, **kwargs or keyword-only parameters)\n    def k(x, n=4):\n               ^'),
    'string_value': (TypeError, 'golden_string_value.py:3:9: strings can only be printed or used as assert messages in kernels\n        s = "text"\n            ^~~~~~'),
    'complex_into_float_array': (TypeError, 'golden_complex_into_float_array.py:3:12: storing a complex128 (a Python complex) into a float32 element would drop the imaginary part; store `.real` explicitly\n        x[0] = 1 + 2j\n               ^~~~~~'),
    'is_comparison': (NotImplementedError, 'golden_is_comparison.py:3:8: `is` is not supported in kernels; compare numbers with == != < <= > >=\n        if x[0] is None:\n           ^~~~~~~~~~~~'),
    'slice': (NotImplementedError, 'golden_slice.py:3:7: a slice is not supported in kernels\n        x[1:3] = 0\n          ^~~'),
    'opaque_global': (TypeError, 'golden_opaque_global.py:3:12: `LIMIT` is a list object; kernels can use numbers, kiln arrays passed as arguments, dtypes, math and kiln.jit functions, and other Python functions\n        x[0] = LIMIT\n               ^~~~~'),
    'device_function_arity': (TypeError, 'golden_device_function_arity.py:6:12: `helper` takes 2 arguments, got 1\n        x[0] = helper(1)\n               ^~~~~~~~~'),
    'bitwise_on_float': (TypeError, 'golden_bitwise_on_float.py:3:12: `&` takes integers or bools, got float32 and int64 (a Python int)\n        x[0] = x[1] & 3\n               ^~~~~~~~'),
    'range_of_float': (TypeError, 'golden_range_of_float.py:3:20: range() arguments must be integers, got float64 (a Python float)\n        for i in range(2.5):\n                       ^~~'),
    'array_attribute': (NotImplementedError, 'golden_array_attribute.py:3:12: arrays in kernels have `shape`, `strides`, `size`, `ndim` and `dtype`; `T` is not supported\n        x[0] = x.T\n               ^~~'),
    'tuple_unpack_mismatch': (ValueError, 'golden_tuple_unpack_mismatch.py:3:12: cannot unpack tuple(int64 (a Python int), int64 (a Python int), int64 (a Python int)) into 2 names\n        a, b = 1, 2, 3\n               ^~~~~~~'),
    'with_statement': (NotImplementedError, 'golden_with_statement.py:3:5: `with` is not supported in kernels\n        with open("f") as f:\n        ^'),
    'return_type_conflict': (TypeError, 'golden_return_type_conflict.py:5:5: `pick` returns a float64 (a Python float) at line 4 but tuple(int64 (a Python int), int64 (a Python int)) here\n        return (1, 2)\n        ^~~~~~~~~~~~~\ngolden_return_type_conflict.py:4:9: note: the other return\n            return 1.5\n            ^~~~~~~~~~'),
    'device_function_falls_off': (TypeError, 'golden_device_function_falls_off.py:2:1: `positive` returns a value on some paths but can reach its end without a `return`, where Python returns None and a kernel has no value to give; return a value on every path\n    def positive(v):\n    ^\ngolden_device_function_falls_off.py:4:9: note: a value is returned here\n            return v\n            ^~~~~~~~'),
    'int_constant_too_big': (OverflowError, 'golden_int_constant_too_big.py:3:12: Python integer 1267650600228229401496703205376 out of bounds for int64: a kernel computes Python integer constants in int64, where this one would wrap; use a float, or a value that fits\n        x[0] = 2 ** 100 // 3\n               ^~~~~~~~'),
    'int_constant_into_int8': (OverflowError, 'golden_int_constant_into_int8.py:3:12: Python integer 300 out of bounds for int8 (as in NumPy 2)\n        x[0] = 300\n               ^~~'),
    'int_constant_meets_int8': (OverflowError, 'golden_int_constant_meets_int8.py:3:23: Python integer 128 out of bounds for int8 (as in NumPy 2)\n        x[0] = x[1] * 2 + 128\n                          ^~~'),
}


@pytest.mark.parametrize("name, source, args", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_golden_error(name, source, args):
    kernel = _make(name, source)
    exc_type, message = EXPECTED[name]
    with pytest.raises(exc_type) as info:
        kernel[1, 1](*args())
    assert str(info.value) == message


def test_at_least_twenty_programs():
    assert len(PROGRAMS) >= 20 and set(EXPECTED) == {p[0] for p in PROGRAMS}
