"""``clabber kiosk`` as a process: it starts, draws its first frame, and refuses bad settings clearly."""

from __future__ import annotations

from tests.helpers import clabber_process as clabber
from tests.store_helpers import QUICK_HANDS, open_table


def test_the_kiosk_starts_and_draws_on_a_database_with_a_game(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    g = t.new_game(["Ruminers", "Mackeys"], first_dealer="N")
    t.add_hand(g.id, QUICK_HANDS[0])
    t.store.close()
    r = clabber("kiosk", "--db", str(tmp_path / "clabber.db"), "--headless", "--exit-at-first-frame")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "first-frame" in r.stdout and "Traceback" not in r.stderr


def test_the_kiosk_refuses_a_bad_setting_naming_the_key(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("rotation = 45\n")
    r = clabber("kiosk", "--db", str(tmp_path / "k.db"), "--headless", env={"CLABBER_CONFIG": str(cfg)})
    assert r.returncode == 2 and "rotation" in r.stderr and "0, 90, 180 or 270" in r.stderr
    r = clabber("kiosk", "--db", str(tmp_path / "k.db"), "--headless", "--size", "800by480")
    assert r.returncode == 2 and "--width" in r.stderr and "Traceback" not in r.stderr


def test_with_no_gpio_the_kiosk_runs_on_mock_pins_and_says_so(tmp_path):
    r = clabber("kiosk", "--db", str(tmp_path / "k.db"), "--headless", "--gpio", "mock", "--exit-at-first-frame")
    assert r.returncode == 0 and "dealer buttons and seat lights: mock pins" in r.stderr


def test_a_bad_gpio_setting_is_refused_at_start_naming_the_key(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("[gpio]\nnext_pin = 99\n")
    r = clabber("kiosk", "--db", str(tmp_path / "k.db"), "--headless", env={"CLABBER_CONFIG": str(cfg)})
    assert r.returncode == 2 and "gpio.next_pin: 99 is not a GPIO pin" in r.stderr and "Traceback" not in r.stderr


def test_with_no_working_opengl_the_kiosk_says_so_in_words(tmp_path):
    # EGL finds no driver: SDL cannot make a window, as on a Pi missing its GL packages.
    no_gl = {"__EGL_VENDOR_LIBRARY_FILENAMES": "/nonexistent.json", "LIBGL_DRIVERS_PATH": "/nonexistent"}
    r = clabber("kiosk", "--db", str(tmp_path / "k.db"), "--headless", "--exit-at-first-frame", env=no_gl)
    assert r.returncode == 2 and "no window could be opened: OpenGL is missing" in r.stderr
    assert "Traceback" not in r.stderr and '  File "' not in r.stderr
