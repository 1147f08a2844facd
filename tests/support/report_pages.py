"""A report page parsed and checked: self-contained, every link and image present."""

from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image as mpimg


class Page(HTMLParser):
    """Images, links, ids and table-row classes of an HTML page."""

    def __init__(self):
        super().__init__()
        self.images, self.links, self.ids, self.rows = [], [], set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs)
        if tag in ("a", "link") and "href" in attrs:
            self.links.append(attrs["href"])
        if tag == "script" and "src" in attrs:
            self.links.append(attrs["src"])
        if tag == "tr":
            self.rows.append(attrs.get("class", ""))


def check_page(index: Path) -> Page:
    """Parse a report page; assert it is self-contained and its PNGs have the stated size."""
    text = index.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text  # self-contained
    assert "<style>" in text
    page = Page()
    page.feed(text)
    for link in page.links:
        if link.startswith("#"):
            assert link[1:] in page.ids, link
        else:
            assert (index.parent / link).is_file(), link
    for image in page.images:
        path = index.parent / image["src"]
        assert path.is_file(), image["src"]
        pixels = mpimg.imread(path)
        assert pixels.ndim == 3 and pixels.shape[2] in (3, 4)
        assert pixels.shape[:2] == (int(image["height"]), int(image["width"])), image["src"]
    return page
