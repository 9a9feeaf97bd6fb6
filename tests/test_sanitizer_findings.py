"""What AddressSanitizer and UBSan found in okl's typed code (issue 29), each as the
smallest calls that reach it.

Under ``.ci/sanitize`` (the extensions built with ``-fsanitize=address,undefined``;
CI runs this file that way) each test below made a report before its fix; in the normal
build each also checks the behaviour the fix keeps, and, where it can be seen from
Python, the fix itself.
"""
import numpy as np

import okl


def test_projectron_first_support_vector():
    """The Projectron's first added vector copied ``n = 0`` doubles from its scratch
    buffer ``beta``, still NULL then: ``memcpy(U, NULL, 0)`` is undefined behaviour
    (UBSan: "null pointer passed as argument 2, which is declared to never be null",
    okl/learners/_projectron.pyx, ProjectronCore.step)."""
    for cls in (okl.Projectron, okl.ProjectronPP):
        learner = cls(kernel=okl.Gaussian(1.0), eta=0.5)
        learner.learn_one(np.array([0.3, -1.2, 0.5]), 1.0)     # score 0: a mistake, added
        assert learner.support_set.vectors.shape == (1, 3)
        np.testing.assert_array_equal(learner.support_set.coefficients, [1.0])
