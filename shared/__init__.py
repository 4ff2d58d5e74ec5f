"""What the kiosk and the league both need, above the engine and below both: a game folded from its
events (``game_state``, ``events``), the sheet and the replay as players read them (``present``,
``replay``), the figures of the statistics (``stats``), result links and QR codes (``share``), and
the HTTP hardening both servers run under (``http``). It imports only the engine."""
