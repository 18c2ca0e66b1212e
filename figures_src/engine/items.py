"""What a page module declares: its worked examples, its figures and its generated Markdown.

Each declaration carries its public names explicitly (an example's ID, a figure's name, which is its
anchor `#fig-<name>` and the prefix of every id in its SVG, the page it belongs to) and the functions
that compute and draw it. Nothing runs when a declaration is made; the build calls `data()` when the item
is stale. A page module lists its declarations in `ITEMS`, in the order they are built.

Everything a page can declare, in full:

- **`Example(id, title, data, snippets=None, cite_line=True)`**: a worked example; its page is the one whose
  module lists it in ITEMS (figures_src/registry.py). `snippets(example)`
  returns `{part: Markdown}`, written to `generated/snippets/<id>-<part>.md` (tables and sentences that walk
  through its numbers). `cite_line=False` when the page lists the example another way (the real model's
  eighteen are listed in one `real-heads-cite` snippet).
- **`example_heatmap(name, example, quantity, *, title, caption, size, head=None, masked=False, controls=None)`**: one of an
  example's tables as a heatmap (`quantity`: `scores`, `scaled_scores` or `weights`; `head` for a multi-head
  example; `masked=True` shows −∞ where the mask forbids a pair). `caption` is text or `caption(example)`.
  The figure carries `data-example`, so the interactive layer enhances it.
  `controls` names the parts of the interactive heatmap the reader gets, from `CONTROLS` in items.py (`modes`,
  `scale`, `mask`, `readout`, `softmax`, `entropy`, `output`): only those a page has introduced (Home: `()`, the
  weights alone). It becomes the figure's `data-controls`, and `docs/widgets/heatmap/heatmap.css` hides the rest;
  `None` (no attribute) gives everything, as on the demo. `Figure` takes the same `controls`.
- **`Figure(name, title, data, render, caption, alt=None, table=None, size=(5.0, 3.6), example=None, snippets=None)`**:
  a bespoke figure. `data()` is seeded and computes its numbers with `attention/`; `render(data, ax)` (or
  `render(data, fig)` for several panels) draws on what it is given with matplotlib's object-oriented API,
  never `pyplot`, and returns the heatmaps it drew (what `heatmap()` returns; one or a list). A figure that
  draws no heatmap also declares `alt(data)`, its text alternative, and `table(data)`, its numbers as
  `{"caption", "columns", "rows"}` (or a list of those). `example` is the worked example the figure shows
  (an `Example`, or `example(data)` when the data decide which, as for the real model's heads); `size` is
  inches, or `size(data)`.
- **`Snippets(name, data, snippets=None, public=None)`**: generated Markdown (`snippets(data)` ->
  `{part: Markdown}`, written to `generated/snippets/<name>[-<part>].md`, part `""` being `<name>.md`) and
  downloads (`public(data)` -> `{path: text or bytes}`, written to `generated/public/<path>` and published at
  `<path>`; bytes for a binary file, as the your-sentence page's model weights).

Nothing runs when a declaration is made: the build calls `data()` when the item is stale.

- `heatmap(ax, values, row_labels, col_labels, *, quantity, panel=None, head=None, title=None, limit=None,
  show_values=True, colorbar=True)` in `figures_src/engine/heatmap.py` draws every attention heatmap: keys on
  x, queries on y, `quantity` picks the colormap (diverging `RdBu_r` centred at 0 for scores, `viridis` on
  [0, 1] for weights). With several heatmaps in one figure give each a `panel` (cell ids become
  `<name>-<panel>-cell-<i>-<j>`) and, for heads, `head=h`. `limit=` shares one colour scale between panels.
  A grid too large to draw cell by cell (hundreds of cells: every element counts against the page's
  1,500-element budget, tests/browser/test_load_budget.py) takes `as_image=True`: one pixel per cell, id
  `<name>[-<panel>]-cells`, no printed numbers (the table and the interactive layer have them).
- Every number a page or figure prints goes through `figures_src/engine/text.py`: `num(value, digits=2,
  trim=False)` (a true minus sign, never "−0", −∞ for a masked score), `vector`, `latex_number`,
  `latex_vector`, and the Markdown `matrix` and `table`. The JavaScript's `formatNumber` prints the same
  digits; `tests/browser/test_parity.py` and `tests/test_problems.py` keep the two identical.
- Phones: draw a figure at most `PHONE_WIDTH` wide (`engine/style.py`, 3.73 in: a 390 px phone's column), so a
  phone shows it unscaled; put several panels one above the other. The build raises any text that would come out
  under 11.2 CSS px there (a mathtext subscript counts; axis labels are 12 pt for that reason), and
  `tests/browser/test_figure_text.py` measures every glyph at 390 px. Axis labels write symbols in mathtext
  (`$d_k$`); captions, titles and legends in Unicode (dₖ); plain-text captions, tables and problems may write
  `W_Q`, which `text.typeset` sets as W<sub>Q</sub>.
- The build resets the style for every figure (`rcdefaults` + `engine/style.py`), sets a per-figure SVG hash
  salt and no date, so the SVG is byte-identical from run to run. Text and axes are drawn black and become
  the page's text colour (`currentColor`); any other colour stays as it is. Use the Okabe-Ito cycle (the
  default) for lines.
- Math in snippets and pages is LaTeX: `$...$` inline, `$$ ... $$` on their own lines for display; it is
  turned into MathML when the site is built (`finish/mathml.py`).

Any exception, a wrong shape, a missing caption, table or alt, a name declared twice, or a heatmap drawn but
not returned stops the build with an error naming the item and its page, and leaves no half-written file.
"""
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import BuildError
from .site import NAME, page_path
from .style import DEFAULT_SIZE

EXAMPLE_HEADER = ("id", "title", "page", "library_version", "precision")
# The parts of the interactive heatmap a figure can offer (docs/widgets/heatmap/heatmap.css hides the others):
# the Raw/Scaled/Weights buttons, the scale slider, the mask menu, the readout of the hovered pair (its dot
# product and scaled score), its softmax line (e^s over the row's total), the entropy bars, the followed row's output.
CONTROLS = ("modes", "scale", "mask", "readout", "softmax", "entropy", "output")


_page_finder = None  # example -> its page's Markdown file, or None: set by figures_src.registry


def find_pages_with(finder):
    """How an Example learns its page: the registry knows the nav; the engine never imports it."""
    global _page_finder
    _page_finder = finder


def _check_name(kind, name):
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise BuildError(f"{kind} name {name!r}: use lower-case words joined by hyphens "
                         "(it becomes a file name and an anchor)")


@dataclass(frozen=True, eq=False)
class Example:
    """A worked example: numbers a reader can cite by ID and download as examples/<id>.json.

    data() -> the example's numbers after its header: seed, tokens, d_k, scale, inputs, steps, outputs and
    any extra fields (figures_src/engine/examples.py has the contract); the build adds id, title, page, library_version
    and precision.
    snippets(example) -> {part: Markdown}, written to snippets/<id>-<part>.md.
    cite_line: write snippets/<id>-cite.md, the line that anchors and cites the example on its page;
    False when the page lists the example another way (real heads lists its eighteen in one list).
    """

    id: str
    title: str
    data: Callable[[], dict]
    snippets: Callable[[dict], dict] | None = None
    cite_line: bool = True
    page: str | None = None  # optional: by default the page whose module lists it in ITEMS (see `markdown`)

    def __post_init__(self):
        _check_name("example", self.id)

    @property
    def name(self):
        return self.id

    @property
    def markdown(self):
        """The Markdown file under docs/ that shows it, "scores.md": the page whose module lists it in ITEMS, as
        figures_src/registry.py finds it (a declaration may also name it, as a test's page does)."""
        if self.page is None:
            found = _page_finder(self) if _page_finder else None
            if found is None:
                raise BuildError(f"example {self.id} is listed in no page module's ITEMS that mkdocs.yml's nav names")
            object.__setattr__(self, "page", found)
        return self.page

    @property
    def url_path(self):
        """The page's path below the site's address: "scores/"."""
        return page_path(self.markdown)

    def compute(self):
        """The whole example, header first; computed once per process."""
        return _computed(self)


@functools.cache
def _computed(example):
    import attention  # noqa: PLC0415  (declarations are read on every build; numpy only when something is computed)

    from .text import published_note  # noqa: PLC0415  (text imports numpy)

    body = example.data()
    clash = [key for key in EXAMPLE_HEADER if key in body]
    if clash:
        raise BuildError(f"example {example.id}: data() must not set {clash}; the declaration does")
    header = {"id": example.id, "title": example.title, "page": example.url_path,
              "library_version": attention.__version__, "precision": published_note()}
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
    values: what the caption's rounding note (engine/text.py) calls a weights heatmap's numbers, when they are
    not attention weights but rows that add up to 1 all the same (an attention rollout: "Rollout values").
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
    values: str | None = None

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
