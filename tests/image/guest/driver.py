"""The power-cut run's hand driver inside the booted image: enters quick hands through the kiosk's
controller as fast as it saves them, and prints ``saved GAME HANDS`` only after the controller
returned (the hand is on the card by the store's promise); given a COUNT, stops after so many
hands. Run as the kiosk's user with the
kiosk's own Python. ``CLABBER_TEST_SYNCHRONOUS=OFF`` weakens its connection, to show that the run
notices a store that does not flush; the kiosk has no such setting.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from kiosk.recovery import open_store
from kiosk.table import Table


def quick_hand(rng: random.Random) -> dict:
    ns = rng.choice([p for p in range(163) if p not in (1, 161)])
    return {"trump": rng.choice("CDHS"), "maker": rng.choice("NESW"), "points": {"NS": ns, "EW": 162 - ns}}


def main() -> None:
    path, seed = Path(sys.argv[1]), int(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else None
    rng = random.Random(seed)
    store, _ = open_store(path, path.parent / "backups")
    weakened = os.environ.get("CLABBER_TEST_SYNCHRONOUS")
    if weakened:
        store.conn.execute(f"PRAGMA synchronous = {weakened}")
    table = Table(store, source="cli", rng=rng)
    game = table.open_game()
    if game is not None and game.pending is not None:
        # A hand entered when the power went, before its confirmation: confirmed now, as the
        # table would on the kiosk's confirm screen (it was never acknowledged).
        game = table.confirm(game.id)
    while count is None or count > 0:
        if count is not None:
            count -= 1
        if game is None or game.status != "open":
            game = table.new_game(["Ruminers", "Mackeys"], first_dealer=rng.choice("NESW"))
        game = table.add_hand(game.id, quick_hand(rng))
        print(f"saved {game.id} {len(game.hands)}", flush=True)


if __name__ == "__main__":
    main()
