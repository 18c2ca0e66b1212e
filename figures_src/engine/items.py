"""What a page module declares: its worked examples, its figures and its generated Markdown.

Each declaration carries its public names explicitly (an example's ID, a figure's name, which is its
anchor `#fig-<name>` and the prefix of every id in its SVG, the page it belongs to) and the functions
that compute and draw it. Nothing runs when a declaration is made; the build calls `data()` when the item
is stale. A page module lists its declarations in `ITEMS`, in the order they are built.
"""
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import BuildError
from .site import NAME, page_path
from .style import DEFAULT_SIZE

EXAMPLE_HEADER = ("id", "title", "page", "library_version")
# The parts of the interactive heatmap a figure can offer (docs/stylesheets/heatmap.css hides the others):
# the Raw/Scaled/Weights buttons, the scale slider, the mask menu, the readout of the hovered pair (its dot
# product and scaled score), its softmax line (e^s over the row's total), the entropy bars, the followed row's output.
CONTROLS = ("modes", "scale", "mask", "readout", "softmax", "entropy", "output")


def _check_name(kind, name):
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise BuildError(f"{kind} name {name!r}: use lower-case words joined by hyphens "
                         "(it becomes a file name and an anchor)")


@dataclass(frozen=True, eq=False)
class Example:
    """A worked example: numbers a reader can cite by ID and download as examples/<id>.json.

    data() -> the example's numbers after its header: seed, tokens, d_k, scale, inputs, steps, outputs and
    any extra fields (CONTRIBUTING.md has the contract); the build adds id, title, page and library_version.
    snippets(example) -> {part: Markdown}, written to snippets/<id>-<part>.md.
    cite_line: write snippets/<id>-cite.md, the line that anchors and cites the example on its page;
    False when the page lists the example another way (real heads lists its eighteen in one list).
    """

    id: str
    title: str
    data: Callable[[], dict]
    snippets: Callable[[dict], dict] | None = None
    cite_line: bool = True
    page: str | None = None  # the Markdown file under docs/ that shows it, "scores.md": see place()

    def __post_init__(self):
        _check_name("example", self.id)

    def place(self, page):
        """The registry gives an example the page whose module lists it in ITEMS (figures_src/registry.py);
        a declaration may also name it, as a test's page does."""
        if self.page not in (None, page):
            raise BuildError(f"example {self.id} says page={self.page!r} but is listed in the ITEMS of {page}")
        object.__setattr__(self, "page", page)

    @property
    def name(self):
        return self.id

    @property
    def url_path(self):
        """The page's path below the site's address: "scores/"."""
        if self.page is None:
            raise BuildError(f"example {self.id} has no page: list it in a page module's ITEMS "
                             "and load that module through figures_src.registry")
        return page_path(self.page)

    def compute(self):
        """The whole example, header first; computed once per process."""
        return _computed(self)


@functools.cache
def _computed(example):
    import attention  # noqa: PLC0415  (declarations are read on every build; numpy only when something is computed)

    body = example.data()
    clash = [key for key in EXAMPLE_HEADER if key in body]
    if clash:
        raise BuildError(f"example {example.id}: data() must not set {clash}; the declaration does")
    header = {"id": example.id, "title": example.title, "page": example.url_path,
              "library_version": attention.__version__}
    return {**header, **body}


@dataclass(frozen=True, eq=False)
class Figure:
    """A figure: matplotlib draws it once, the build inlines it as SVG with its caption and its numbers.

    data() -> anything; render(data, ax) or render(data, fig) draws on what it is given and returns the
    heatmaps it drew (what `heatmap()` returns, one or a list). caption: text, or caption(data).
    A figure that draws no heatmap also gives alt(data), its text alternative, and table(data), its numbers.
    example: the worked example whose numbers the figure shows (the interactive layer's data-example), or
    example(data) -> Example when the data decide which one. size: inches, or size(data).
    snippets(data) -> {part: Markdown}, written to snippets/<name>-<part>.md.
    controls: which parts of the interactive heatmap the reader gets (names in CONTROLS, written to the
    figure's data-controls); None gives all of them, () a bare grid for a page that has introduced none.
    """

    name: str
    title: str
    data: Callable[[], Any]
    render: Callable
    caption: str | Callable[[Any], str]
    alt: Callable[[Any], str] | None = None
    table: Callable[[Any], dict | list] | None = None
    size: tuple | Callable[[Any], tuple] = DEFAULT_SIZE
    example: "Example | Callable[[Any], Example] | None" = None
    snippets: Callable[[Any], dict] | None = None
    controls: tuple | None = None

    def __post_init__(self):
        _check_name("figure", self.name)
        unknown = set(self.controls or ()) - set(CONTROLS)
        if unknown:
            raise BuildError(f"figure {self.name}: unknown controls {sorted(unknown)}; choose from {CONTROLS}")


@dataclass(frozen=True, eq=False)
class Snippets:
    """Generated Markdown and downloads: sentences, tables and files that carry computed numbers.

    snippets(data) -> {part: Markdown}: snippets/<name>.md for part "", else snippets/<name>-<part>.md.
    public(data) -> {path: text or bytes}: generated/public/<path>, published at <path> under the site's address.
    """

    name: str
    data: Callable[[], Any]
    snippets: Callable[[Any], dict] | None = None
    public: Callable[[Any], dict] | None = None

    def __post_init__(self):
        _check_name("snippets", self.name)
        if self.snippets is None and self.public is None:
            raise BuildError(f"snippets {self.name}: declare snippets(data), public(data) or both")


def example_heatmap(name, example, quantity, *, title, caption, size, head=None, masked=False, controls=None):
    """A figure of one of `example`'s tables, as one heatmap: steps[quantity] (of `head`, for a multi-head
    example). masked=True shows the scores the softmax receives: −∞ wherever inputs.mask forbids a pair.
    caption: text, or caption(example). controls: as in Figure (None: all of them)."""
    if quantity not in ("scores", "scaled_scores", "weights"):
        raise BuildError(f"figure {name}: quantity must be scores, scaled_scores or weights, got {quantity!r}")

    def values(ex):
        import numpy as np  # noqa: PLC0415

        table = np.asarray(ex["steps"][quantity])
        if head is not None:
            table = table[head]
        if masked:
            table = np.where(ex["inputs"]["mask"], table, -np.inf)
        return table

    def render(ex, ax):
        import numpy as np  # noqa: PLC0415, F811  (numpy only when a figure is drawn)

        from .heatmap import heatmap  # noqa: PLC0415  (matplotlib only where a figure is drawn)

        forbidden = ~np.asarray(ex["inputs"]["mask"], dtype=bool) if masked else None
        # Every cell prints its number, so the colour bar only repeats them: past five tokens it gives its width
        # to the cells, whose numbers (−2.465) then fit at a phone's size.
        return heatmap(ax, values(ex), ex["tokens"], ex["tokens"], quantity=quantity, head=head, masked=forbidden,
                       colorbar=len(ex["tokens"]) <= 5)

    return Figure(name, title, example.compute, render, caption, size=size, example=example, controls=controls)
