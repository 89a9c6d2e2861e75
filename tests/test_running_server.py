"""The throw-away servers the live-server tests start (sample_dumps/make_sample_dumps.RunningServer)."""

import time

import pytest
import servers


@pytest.mark.server
@pytest.mark.parametrize("label", sorted(servers.EXPECTED))
def test_a_server_stops_at_once_and_leaves_nothing(label):
    """SHUTDOWN drops the connection as the server exits; the client's default retries of the refused
    reconnection added 4 s of backoff to every stop (a fifth of the quick tier's time)."""
    with servers.make_sample_dumps.RunningServer(servers.server(label), {"save": ""}) as running:
        running.client(0).set("k", "v")
        process, workdir = running.process, running.workdir
        started = time.monotonic()
    assert time.monotonic() - started < 1.0
    assert process.poll() == 0 and not workdir.exists()
