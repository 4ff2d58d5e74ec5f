"""Every page of a league's site, found as a person finds them: from the front page and the organiser's,
following each link, chart and export, for the tests that load them all."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from starlette.testclient import TestClient

LINK = re.compile(r'(?:href|src)="([^"#]+)"')
# Not pages: the board's stream never ends, and signing out ends the crawl's session.
SKIP = re.compile(r"/events$|/sign-out$")


def crawl(client: TestClient, starts: tuple[str, ...] = ("/", "/organiser", "/organiser/kiosks")) -> dict[str, int]:
    """Each page reached (path -> status), following same-site links from ``starts``."""
    seen: dict[str, int] = {}
    todo = list(starts)
    while todo:
        path = todo.pop()
        if path in seen or SKIP.search(path):
            continue
        r = client.get(path)
        seen[path] = r.status_code
        if "html" not in r.headers.get("content-type", ""):
            continue
        for link in LINK.findall(r.text):
            url = urlsplit(urljoin("http://testserver" + path, link.replace("&amp;", "&")))
            if url.netloc == "testserver":
                todo.append(url.path + (f"?{url.query}" if url.query else ""))
    return seen
