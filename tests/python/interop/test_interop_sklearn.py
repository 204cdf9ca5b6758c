"""scikit-learn's array API mode on kiln arrays (issue 24): five estimators
under ``array_api_dispatch=True`` fitted on kiln arrays give NumPy's
results, and array-api-extra's functions (scikit-learn's copy) take kiln
arrays. Run in a subprocess: scikit-learn needs SCIPY_ARRAY_API=1 set before
SciPy is imported."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("array_api_compat")

SCRIPT = r'''
import numpy, kiln, sklearn
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.externals import array_api_extra as xpx
from sklearn.linear_model import Ridge
from sklearn.preprocessing import MinMaxScaler, StandardScaler

rng = numpy.random.default_rng(0)
X = rng.standard_normal((40, 4))
labels = (X[:, 0] + 0.3 * rng.standard_normal(40) > 0).astype(numpy.int64)
target = X @ numpy.arange(4.0) + 0.1 * rng.standard_normal(40)
cases = [
    ("PCA", lambda: PCA(n_components=2, svd_solver="full"), lambda e, X, y: abs(e.fit_transform(X)), labels),
    ("StandardScaler", StandardScaler, lambda e, X, y: e.fit_transform(X), labels),
    ("MinMaxScaler", MinMaxScaler, lambda e, X, y: e.fit_transform(X), labels),
    ("Ridge", lambda: Ridge(solver="svd"), lambda e, X, y: e.fit(X, y).predict(X), target),
    ("LinearDiscriminantAnalysis", LinearDiscriminantAnalysis, lambda e, X, y: e.fit(X, y).predict_proba(X), labels),
]
for name, make, run, y in cases:
    with sklearn.config_context(array_api_dispatch=True):
        got = run(make(), kiln.asarray(X), kiln.asarray(y))
    assert isinstance(got, kiln.ndarray), (name, type(got))
    numpy.testing.assert_allclose(kiln.asnumpy(got), run(make(), X, y), rtol=1e-9, atol=1e-12, err_msg=name)
a = rng.standard_normal((3, 3))
for f in (lambda x, m: xpx.cov(x, xp=m), lambda x, m: xpx.atleast_nd(x, ndim=3, xp=m),
          lambda x, m: xpx.kron(x, x, xp=m), lambda x, m: xpx.create_diagonal(x[0], xp=m),
          lambda x, m: xpx.pad(x, 1, xp=m)):
    got = f(kiln.asarray(a), kiln)
    assert isinstance(got, kiln.ndarray)
    numpy.testing.assert_allclose(kiln.asnumpy(got), f(a, numpy), rtol=1e-12)
print("ok")
'''


def test_estimators_and_array_api_extra_on_kiln_arrays():
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(os.path.dirname(__import__("kiln").__file__)),
                                                     env.get("PYTHONPATH", "")] if p)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout[-3000:] + r.stderr[-5000:]
