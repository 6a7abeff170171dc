"""Every GET a viewer might try on a night, read as each viewer reads it, and the
headers every answer must carry: the secrecy tests look for a secret in what comes back."""

import re

WHEN, WHAT = "Quokka when secret", "Narwhal what secret"


def roles_in(html):
    """Role words shown as an element's whole text (the checklist's prose does not count)."""
    return re.findall(r">\s*(Explorer|Skeleton)s?\s*<", html)


def pages(night, game_url):
    """Every GET a viewer might try on this night: pages, fragments, polls, exports, rules."""
    number = game_url.rstrip("/").rsplit("/", 1)[1]
    key = night.key
    return [
        "/", f"/n/{key}", f"/n/{key}/live", f"/n/{key}/sheet", f"/n/{key}/qr/0.svg",
        game_url, f"{game_url}/live", f"/n/{key}/tally", f"/n/{key}/tally/live",
        f"/n/{key}/export.json", f"/n/{key}/export.csv", f"/n/{key}/live?v=0",
        f"/n/{key}/screen", f"/n/{key}/screen/live", f"/n/{key}/screen/live?v=0",
        "/me", "/me/live", "/me/tally", "/me/tally/live", "/me/live?v=0", "/me/tally/live?v=0",
        "/history", "/stats", "/rules/kraken", "/rules/skullking", "/rules/crazytime",
        f"/n/{key}/g/{number}/skullking/correct/1", f"/n/{key}/g/{int(number) + 5}",
        f"/n/{key[:-1]}", f"/n/{key[:20]}/g/{number}", f"/s/{night.tokens[0][:-1]}",
        f"/s/{night.tokens[0][:16]}", "/h/" + "A" * 43, "/nothing-here",
    ] + [f"/s/{t}" for t in night.tokens]


def crawl(client, urls):
    """(url, status, headers, text) of every answer; redirects are followed and kept."""
    answers = []
    for url in urls:
        response = client.get(url, headers={"Accept-Language": "en"})
        answers.append((url, response.status_code, response.headers,
                        response.data.decode("utf-8", "replace")))
        if response.status_code in (301, 302, 303):
            target = response.headers["Location"]
            follow = client.get(target, headers={"Accept-Language": "en"})
            answers.append((target, follow.status_code, follow.headers,
                            follow.data.decode("utf-8", "replace")))
        response = client.get(url, headers={"HX-Request": "true", "Accept-Language": "en"})
        answers.append((url + " [htmx]", response.status_code, response.headers,
                        response.data.decode("utf-8", "replace")))
    return answers


def check_headers(answers):
    for url, _status, headers, _text in answers:
        assert headers.get("Referrer-Policy") == "no-referrer", url
        assert headers.get("X-Content-Type-Options") == "nosniff", url
        assert "no-store" in headers.get("Cache-Control", ""), url
        csp = headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp, url
        assert "frame-ancestors 'none'" in csp, url
