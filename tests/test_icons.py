"""Every page names its icon and the web app manifest; both are there."""

import json
import re


def test_a_page_links_the_icon_and_the_manifest(client):
    html = client.get("/").get_data(as_text=True)
    icon = re.search(r'<link rel="icon" href="([^"]+)"', html).group(1)
    manifest = re.search(r'<link rel="manifest" href="([^"]+)"', html).group(1)
    assert client.get(icon).status_code == 200
    response = client.get(manifest)
    assert response.status_code == 200
    document = json.loads(response.get_data())
    assert document["start_url"] == "/" and document["display"] == "standalone"
    sizes = set()
    for entry in document["icons"]:
        image = client.get("/static/" + entry["src"])
        assert image.status_code == 200 and image.mimetype == "image/png"
        sizes.add(entry["sizes"])
    assert {"192x192", "512x512"} <= sizes


def test_the_browsers_own_favicon_request_gets_the_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.mimetype == "image/png"
    assert "Set-Cookie" not in response.headers
