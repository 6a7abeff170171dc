"""The host's Wi-Fi form, as a browser sends it, and the code's image on the page."""

import re

PASSWORD = "Pa;ss,wo:rd\\q\"u'ote"  # every character the format escapes, and a quote
IMAGE = re.compile(r'src="([^"]*/wifi\.png[^"]*)"')


def set_wifi(client, night, **form):
    """The host's form, as a browser sends it (htmx): the answer."""
    data = {"ssid": "Table", "password": PASSWORD, **form}
    return client.post(f"{night.url}/wifi", data={k: v for k, v in data.items() if v is not None},
                       headers={"HX-Request": "true"})


def image_url(html):
    """The address of the Wi-Fi code's image on a page (None: the page shows none)."""
    found = IMAGE.search(html)
    return found.group(1).replace("&amp;", "&") if found else None
