"""The league's side of updates, on a real league server on loopback: the organiser offers a
bundle, a kiosk hears of it at its sync and fetches it (resuming where it stopped), and tells the
league its version, slot, free space and its update's state, which `clabber league kiosks` prints."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from kiosk import outbox
from kiosk.sync import Sync
from kiosk.updates import download
from kiosk.updates.state import UpdateState, write_state
from shared.update_states import ROLLED_BACK
from tests.league_server import CLABBER
from tests.rauc_helpers import make_bundle, make_key
from tests.sync_helpers import QUICK, kiosk_at, served_league


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundle")
    return make_bundle(folder, "0.2.0", make_key(folder, "distributor"))


@pytest.fixture
def league(tmp_path, monkeypatch):
    monkeypatch.setenv("CLABBER_LEAGUE_UPDATES", str(tmp_path / "offered"))
    monkeypatch.setenv("CLABBER_UPDATE_STATE", str(tmp_path / "update-state.json"))
    yield from served_league(str(tmp_path / "league.db"))


def league_cli(db, *args):
    return subprocess.run([str(CLABBER), "league", "--db", db, *args], capture_output=True, text=True, timeout=60)


def test_an_offered_bundle_reaches_the_kiosk_at_its_sync_and_is_fetched_whole(league, bundle, tmp_path):
    done = league_cli(league["db"], "update", "offer", str(bundle))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("version 0.2.0 (") and "for clabber-pi-arm64) offered to every kiosk" in done.stdout

    kiosk, _ = kiosk_at(league, tmp_path / "k", league["venues"][0], league["url"])
    Sync(kiosk.path, QUICK).step()
    offer = outbox.update_offer(kiosk.store)
    assert offer["version"] == "0.2.0" and offer["size"] == bundle.stat().st_size
    assert offer["sha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()
    assert offer["url"] == f"{league['url']}/api/v1/update/0.2.0.raucb"

    key = outbox.link(kiosk.store)["key"]
    wanted = download.Offer(offer["version"], offer["size"], offer["sha256"], offer["url"])
    folder = tmp_path / "downloads"
    folder.mkdir()
    # A download that stopped half-way: the rest is asked for with a range, the first half kept.
    half = bundle.stat().st_size // 2
    download.part_of(folder, wanted).write_bytes(bundle.read_bytes()[:half])
    seen = []
    fetched = download.fetch(wanted, folder, key, progress=seen.append)
    assert fetched.read_bytes() == bundle.read_bytes()
    assert seen[0] >= 50 and seen[-1] == 100  # it went on from half-way

    # Proof that the range was used: a wrong first half is kept, and the whole fails its SHA-256.
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    download.part_of(wrong, wanted).write_bytes(b"\0" * half)
    with pytest.raises(download.DownloadError, match="SHA-256 differs"):
        download.fetch(wanted, wrong, key)
    assert download.fetch(wanted, wrong, key).read_bytes() == bundle.read_bytes()  # fetched whole again

    # Without the kiosk's key, nothing.
    with pytest.raises(download.DownloadError, match="401"):
        download.fetch(wanted, tmp_path / "nokey", None)

    done = league_cli(league["db"], "update", "withdraw")
    assert done.stdout.strip() == "the offer is withdrawn"
    Sync(kiosk.path, QUICK).step()
    assert outbox.update_offer(kiosk.store) == {}
    kiosk.close()


def test_the_fleet_shows_each_kiosks_version_space_and_rollback(league, tmp_path):
    kiosk, kiosk_id = kiosk_at(league, tmp_path / "k", league["venues"][0], league["url"])
    write_state(
        tmp_path / "update-state.json",
        UpdateState(
            state=ROLLED_BACK, running="0.1.0", version="0.2.0", slot="A", why="at its first start, kiosk: failed"
        ),
    )
    Sync(kiosk.path, QUICK).step()
    done = league_cli(league["db"], "kiosks", "--json")
    assert done.returncode == 0, done.stderr
    fleet = {k["id"]: k for k in json.loads(done.stdout)}
    me = fleet[kiosk_id]
    assert me["slot"] == "A" and me["version"] and me["free_bytes"] > 0 and me["reported_at"]
    assert me["update"] == {
        "state": "rolled back",
        "version": "0.2.0",
        "percent": 0,
        "why": "at its first start, kiosk: failed",
    }
    kiosk.close()


def test_a_report_the_league_cannot_believe_is_refused_with_why(league, tmp_path):
    from tests.league_server import Api

    kiosk, _ = kiosk_at(league, tmp_path / "k", league["venues"][0], league["url"])
    api = Api(league["server"].port)
    key = outbox.link(kiosk.store)["key"]
    status, answer = api.call("POST", "/api/v1/report", {"update": {"state": "exploded"}}, key)
    assert status == 422 and answer["error"].startswith("update.state: one of up to date, offered")
    status, answer = api.call("POST", "/api/v1/report", {"free_bytes": -1}, key)
    assert status == 422 and answer["error"] == "free_bytes: a count of bytes"
    status, _ = api.call("POST", "/api/v1/report", {"version": "0.1.0"}, "not-a-key")
    assert status == 401
    kiosk.close()
