"""A page's DOM as the browser left it (chromium --dump-dom, or puppeteer's
page.content()), read back into a small tree with the standard library's
html.parser, so that tests can ask for elements by id, tag, class and
attribute the way docs/PAGES.md names them.

    dom = page_dom.parse(html)
    dom.by_id("counts").find_all("dd", attr="data-count")
    element.attrs["data-value"], element.text()"""
from html.parser import HTMLParser

# Elements that have no end tag (the HTML serializer writes none).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Element:
    def __init__(self, tag, attrs, parent=None):
        self.tag = tag
        # An attribute without a value (<input required>) reads as "".
        self.attrs = {name: ("" if value is None else value) for name, value in attrs}
        self.parent = parent
        self.children = []  # Elements and str

    def elements(self):
        """Every element below this one, in document order."""
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.elements()

    def find_all(self, tag=None, cls=None, attr=None, **equal):
        """Elements below with that tag, class, attribute present, and
        attributes equal to `equal` (data_count="FUNC" is data-count)."""
        wanted = {name.replace("_", "-"): value for name, value in equal.items()}
        found = []
        for element in self.elements():
            if tag and element.tag != tag:
                continue
            if cls and cls not in element.attrs.get("class", "").split():
                continue
            if attr and attr not in element.attrs:
                continue
            if any(element.attrs.get(name) != value for name, value in wanted.items()):
                continue
            found.append(element)
        return found

    def find(self, tag=None, cls=None, attr=None, **equal):
        found = self.find_all(tag, cls, attr, **equal)
        return found[0] if found else None

    def by_id(self, ident):
        for element in self.elements():
            if element.attrs.get("id") == ident:
                return element
        return None

    def text(self):
        """The text inside, whitespace runs folded to one space."""
        parts = []

        def walk(node):
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                elif child.tag not in ("script", "style"):
                    walk(child)
        walk(self)
        return " ".join("".join(parts).split())

    def __repr__(self):
        return f"<{self.tag} {self.attrs}>"


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", [])
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs, self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Element(tag, attrs, self.current))

    def handle_endtag(self, tag):
        # Close up to the matching open element; a stray end tag changes nothing.
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(html):
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root
