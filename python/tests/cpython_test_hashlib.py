"""CPython's own Lib/test/test_hashlib.py, run with hashlab standing in for hashlib.

    python python/tests/cpython_test_hashlib.py     # exit 0: as expected

Every ``import hashlib``, including the fresh imports the suite makes with
``import_fresh_module`` for its PBKDF2 tests, gets the ``hashlab`` module
(a finder placed first on ``sys.meta_path``), so the real hashlib is never
loaded. CPython's private hash modules are blocked, so the suite adds none
of their constructors beside hashlab's: what it tests is hashlab alone.
``_blake2`` stays importable: the suite only imports it to learn that the
build has BLAKE2 (its constructors come from
``hashlib.__get_builtin_constructor``, which is hashlab's). Test resources
are off: the vector tests that would download files skip.

The suite's tests that read CPython's private objects skip, listed in
PRIVATE with the reason; tests that fail because hashlab lacks a feature are
listed in KNOWN_GAPS and must fail (a listed test that passes is an error,
so the list cannot go stale). Any other failure or error fails the run.

The test file comes from the interpreter's own ``test`` package (pyenv and
python.org builds ship it) or, for Debian's Python, from the
libpython3.X-testsuite package that scripts/setup installs. Exit status 3
when it is nowhere.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import unittest

BLOCKED = ("_hashlib", "_md5", "_sha1", "_sha2", "_sha256", "_sha512", "_sha3")

# Tests that read CPython's private objects (skipped here, with the reason).
# None since hashlab's SHA-3 and SHAKE objects carry _capacity_bits, _rate_bits
# and _suffix, which test_extra_sha3 reads.
PRIVATE = {}

# Tests that fail because hashlab lacks what they test (must fail, with the reason).
KNOWN_GAPS = {
    # None since hashlab.Hash is made from a spec (hash_type.rs) and immutable,
    # which test_readonly_types checks.
}


class _HashlabAsHashlib(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of ``hashlib`` give the hashlab module itself."""

    def __init__(self, module):
        self.module = module
        self.original_spec = module.__spec__

    def find_spec(self, name, path=None, target=None):
        if name != "hashlib":
            return None
        return importlib.machinery.ModuleSpec("hashlib", self)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # The import system set hashlab's __spec__ to the spec of "hashlib": put it back.
        module.__spec__ = self.original_spec


def _find_test_file():
    """The path of test_hashlib.py for this interpreter, or None."""
    spec = importlib.util.find_spec("test.test_hashlib")
    if spec is not None and spec.origin:
        return spec.origin
    debian = f"/usr/lib/python{sys.version_info[0]}.{sys.version_info[1]}/test/test_hashlib.py"
    return debian if os.path.exists(debian) else None


def _load_suite_module(path):
    spec = importlib.util.spec_from_file_location("test.test_hashlib", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["test.test_hashlib"] = module
    spec.loader.exec_module(module)
    return module


def main():
    import hashlab

    path = _find_test_file()
    if path is None:
        print(
            "cpython_test_hashlib: no test_hashlib.py for Python "
            f"{sys.version_info[0]}.{sys.version_info[1]} (install libpython3.X-testsuite: scripts/setup)",
            file=sys.stderr,
        )
        return 3
    finder = _HashlabAsHashlib(hashlab)
    sys.meta_path.insert(0, finder)
    sys.modules["hashlib"] = hashlab
    for name in BLOCKED:
        sys.modules[name] = None

    from test import support

    support.use_resources = []  # resources off: no network
    os.chdir(tempfile.mkdtemp(prefix="hashlab-test_hashlib-"))
    module = _load_suite_module(path)

    substituted = {
        "hashlib": module.hashlib,
        "openssl_hashlib": getattr(module, "openssl_hashlib", None),
        "builtin_hashlib": getattr(module, "builtin_hashlib", None),
    }
    for what, value in substituted.items():
        if value is not None and value is not hashlab:
            print(f"cpython_test_hashlib: the suite's {what} is {value!r}, not hashlab", file=sys.stderr)
            return 1

    for test_id, reason in PRIVATE.items():
        cls_name, method = test_id.split(".")
        setattr(getattr(module, cls_name), method, unittest.skip(f"private: {reason}")(lambda self: None))

    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)

    def short(test):
        test = getattr(test, "test_case", test)  # a failed subTest counts as its test
        return ".".join(test.id().split(".")[-2:])

    failed = {short(t) for t, _ in result.failures + result.errors}
    unexpected = sorted(failed - KNOWN_GAPS.keys())
    fixed = sorted(KNOWN_GAPS.keys() - failed)
    skipped = sorted((short(t), reason) for t, reason in result.skipped)
    passed = result.testsRun - len(failed) - len(skipped)

    print(f"\n== CPython {path} with hashlab as hashlib")
    print(f"passed {passed}, skipped {len(skipped)}, failed {len(failed)} "
          f"(known gaps {len(failed & KNOWN_GAPS.keys())}, unexpected {len(unexpected)})")
    for test_id, reason in skipped:
        print(f"  skipped {test_id}: {reason}")
    for test_id in sorted(failed & KNOWN_GAPS.keys()):
        print(f"  known gap {test_id}: {KNOWN_GAPS[test_id]}")
    for test_id in unexpected:
        print(f"  FAILED {test_id}")
    for test_id in fixed:
        print(f"  PASSES NOW {test_id}: remove it from KNOWN_GAPS in {__file__}")
    return 1 if unexpected or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
