import os
import sys

import pytest
from hypothesis import settings

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)

# The suite runs as an installed user's program does: it imports the installed ``paipu`` only.
# ``python -m pytest`` puts the current folder (the checkout) first on the import path, where
# ``replay``, ``analysis`` and ``cli`` import as top-level names no installed user has (that hid
# a crash of ``paipu replay --html`` for every installed user); pyproject.toml's importlib mode
# keeps pytest itself from adding it, and this takes away what ``python -m`` added.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != CHECKOUT]
sys.path.insert(0, HERE)  # the tests' own helpers (helpers, crashkit, toygame, ...)

# Hypothesis is derandomised: each test draws the same examples on every run, CI included
# (the seed is derived from the test's name; PAIPU_HYPOTHESIS=random draws new ones).
settings.register_profile("paipu", derandomize=True, print_blob=True)
settings.register_profile("random", print_blob=True)
HYPOTHESIS_PROFILE = "random" if os.environ.get("PAIPU_HYPOTHESIS") == "random" else "paipu"
settings.load_profile(HYPOTHESIS_PROFILE)


def pytest_report_header(config):
    return (f"hypothesis: profile {HYPOTHESIS_PROFILE!r}, derandomize={settings.default.derandomize} "
            "(PAIPU_HYPOTHESIS=random draws new examples)")

#: credentials a local S3 server accepts (no real account is ever used by the tests)
AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def aws_env():
    """The test credentials in the environment (Ray nodes started meanwhile inherit them)."""
    saved = {k: os.environ.get(k) for k in [*AWS, "AWS_ENDPOINT_URL"]}
    os.environ.update(AWS)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def s3(aws_env):
    """The endpoint URL of a fresh S3 server holding the empty bucket ``paipu``."""
    import logging

    server_mod = pytest.importorskip("moto.server")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no request log on stderr
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{server._server.server_port}"
    from paipu.replay.io import store

    store.set_endpoint(url)
    import pyarrow.fs as pafs

    pafs.S3FileSystem(endpoint_override=url, region="us-east-1", allow_bucket_creation=True).create_dir("paipu")
    yield url
    server.stop()
    os.environ.pop("AWS_ENDPOINT_URL", None)
    store._filesystem.cache_clear()
