"""The problems page's notebook (figures_src/pages/problems/__init__.py, notebook_cells): the kit's stubs as cells,
each followed by a check cell running the kit's own check_step. The checks fail until the stubs are solved and pass
once they are; a half-right solution fails with the kit's message.

The build-free tests read the cells as the page module declares them; the others run the built notebook
(generated/public/notebooks/problems.ipynb) on a fresh kernel, as it is, then with its stubs replaced.
"""
import copy
import re
import tempfile
import textwrap

import pytest

from figures_src.pages import problems
from figures_src.pages.problems import kit_template

NOTEBOOK = "public/notebooks/problems.ipynb"
RAISES = "raises-exception"
FUNCTIONS = list(dict.fromkeys(function for _, function in kit_template.STEPS))  # soften_rows has two steps

# Correct solutions in plain numpy loops, each replacing its stub cell whole (the check cells call them by name).
SOLUTIONS = {
    "scale_scores": """
        def scale_scores(Q, K):
            n_q, d_k = Q.shape
            S = np.zeros((n_q, K.shape[0]))
            for i in range(n_q):
                for j in range(K.shape[0]):
                    S[i, j] = sum(Q[i, c] * K[j, c] for c in range(d_k)) / d_k ** 0.5
            return S""",
    "soften_rows": """
        def soften_rows(S, mask=None):
            A = np.zeros(S.shape)
            for i in range(S.shape[0]):
                allowed = [j for j in range(S.shape[1]) if mask is None or mask[i, j]]
                top = max(S[i, j] for j in allowed)
                total = sum(np.exp(S[i, j] - top) for j in allowed)
                for j in allowed:
                    A[i, j] = np.exp(S[i, j] - top) / total
            return A""",
    "weighted_sum": """
        def weighted_sum(A, V):
            out = np.zeros((A.shape[0], V.shape[1]))
            for i in range(A.shape[0]):
                for j in range(A.shape[1]):
                    out[i] += A[i, j] * V[j]
            return out""",
    "attention_end_to_end": """
        def attention_end_to_end(X, W_Q, W_K, W_V, mask=None):
            return weighted_sum(soften_rows(scale_scores(X @ W_Q, X @ W_K), mask), X @ W_V)""",
    "value_gradient": """
        def value_gradient(A, V, dO):
            dV = np.zeros((A.shape[1], dO.shape[1]))
            for i in range(A.shape[0]):
                for j in range(A.shape[1]):
                    dV[j] += A[i, j] * dO[i]
            return dV""",
    "score_gradient": """
        def score_gradient(A, V, dO):
            dS = np.zeros(A.shape)
            for i in range(A.shape[0]):
                dA = [sum(dO[i, c] * V[j, c] for c in range(V.shape[1])) for j in range(A.shape[1])]
                through = sum(dA[j] * A[i, j] for j in range(A.shape[1]))
                for j in range(A.shape[1]):
                    dS[i, j] = A[i, j] * (dA[j] - through)
            return dS""",
    "source_digit": """
        def source_digit(given):
            N, t, layers, heads, d_k, size = given[0]
            return [[N - t + 1]]  # reversing: output digit t is source digit N - t + 1""",
    "kv_cache_bytes": """
        def kv_cache_bytes(given):
            N, t, layers, heads, d_k, size = given[0]
            return [[(N + t) * layers * heads * (d_k + d_k) * size]]""",
    "step_dot_products": """
        def step_dot_products(given):
            N, t, layers, heads, d_k, size = given[0]
            n = N + t
            return [[layers * heads * n, layers * heads * n * n]]""",
    "sinusoid_entry": """
        def sinusoid_entry(given):
            d, p, p_key, entry, pair = given[0]
            r = (int(entry) + 1) // 2
            angle = p * 10000 ** (-2 * (r - 1) / d)
            return [[np.sin(angle) if entry % 2 == 1 else np.cos(angle)]]""",
    "rope_pair": """
        def rope_pair(given, q):
            d, p, p_key, entry, r = given[0]
            theta = p * 10000 ** (-2 * (r - 1) / d)
            a, b = q[0, 2 * int(r) - 2], q[0, 2 * int(r) - 1]
            return [[a * np.cos(theta) - b * np.sin(theta), a * np.sin(theta) + b * np.cos(theta)]]""",
    "rope_score": """
        def rope_score(given, q, k):
            d, p, p_key, entry, pair = given[0]
            score = 0.0
            for r in range(1, int(d) // 2 + 1):
                turned = []
                for vector, position in ((q, p), (k, p_key)):
                    theta = position * 10000 ** (-2 * (r - 1) / d)
                    a, b = vector[0, 2 * r - 2], vector[0, 2 * r - 1]
                    turned.append((a * np.cos(theta) - b * np.sin(theta), a * np.sin(theta) + b * np.cos(theta)))
                score += turned[0][0] * turned[1][0] + turned[0][1] * turned[1][1]
            return [[score]]""",
    "kv_heads_read": """
        def kv_heads_read(given):
            query_heads, kv_heads = int(given[0, 0]), int(given[0, 1])
            group = query_heads // kv_heads
            return [[(g - 1) // group + 1 for g in range(1, query_heads + 1)]]""",
    "grouped_kv_cache": """
        def grouped_kv_cache(given):
            query_heads, kv_heads, layers, d_k, n, size = given[0]
            per_token = layers * kv_heads * (d_k + d_k)
            return [[per_token, per_token * n * size]]""",
}
UNSCALED = """
    def scale_scores(Q, K):
        return Q @ K.T  # forgot the 1/√d_k"""


# ---------------------------------------------------------------- the cells, as the page module declares them


def is_stub(cell):
    """A stub's cell: a function to fill in (the checker's functions, in the cell before the first stub, are not)."""
    return cell.kind == "code" and cell.text.startswith("def ") and "def check_step" not in cell.text


def test_the_notebook_holds_each_stub_as_the_kit_has_it_and_a_check_after_each_step():
    cells = problems.notebook_cells()
    stubs = [c.text for c in cells if is_stub(c)]
    assert stubs == [problems.source(getattr(kit_template, f)).text for f in FUNCTIONS], \
        "each of the kit's functions appears once, as kit_template.py has it, in the kit's order"
    checks = [c for c in cells if RAISES in c.tags]
    assert [re.search(r"check_step\('([^']*)'", c.text).group(1) for c in checks] == \
        [title for title, _ in kit_template.STEPS], "every step of the kit has its check cell, in the kit's order"
    assert all(c.kind == "code" and "AssertionError" in c.text for c in checks), \
        "a check cell raises AssertionError until its step passes"
    assert set(SOLUTIONS) == set(FUNCTIONS), "this test has a solution for every stub"


def test_the_checker_cell_is_the_kits_own():
    cells = [c for c in problems.notebook_cells() if c.kind == "code" and not is_stub(c) and RAISES not in c.tags]
    checker = "\n".join(c.text for c in cells)
    kit = problems.kit(problems.all_sets())
    for name in ("compare", "arrays", "check_step"):
        assert problems.source(getattr(kit_template, name)).text in checker, f"{name} is the kit's own source"
    (cases,) = [line for line in kit.splitlines() if line.startswith("CASES = ")]
    assert cases in checker.splitlines(), "the checker holds the kit's CASES line, the page's variants written in"
    assert all(c.hidden == ("CASES = " in c.text) for c in cells), \
        "the one long CASES line sits in a cell of its own, folded away in Jupyter; the checker's functions show"


def test_a_cell_after_a_stub_never_needs_an_earlier_check_to_pass():
    """Run All goes on past a failing check (it is tagged raises-exception): nothing may depend on a check's
    variables, and the checks come last, so an unsolved step breaks nothing after it."""
    cells = problems.notebook_cells()
    first_stub = next(k for k, c in enumerate(cells) if is_stub(c))
    code = [c for c in cells[first_stub:] if c.kind == "code"]
    assert all(is_stub(c) or RAISES in c.tags for c in code), \
        "after the first stub, every code cell is a stub or a tagged check"
    assert all("passed" not in c.text for c in code if c.text.startswith("def ")), \
        "a stub does not read what a check leaves behind"


# ---------------------------------------------------------------- the built notebook, run on a fresh kernel


def execute(nb):
    """Run `nb` in place on a fresh python3 kernel (IPC, as the build does); errors stay in the outputs, and a cell
    not tagged raises-exception that raises fails the run."""
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    with tempfile.TemporaryDirectory(prefix="aih-problems-nb-") as folder:
        manager = KernelManager(kernel_name="python3", transport="ipc", ip=f"{folder}/kernel")
        NotebookClient(nb, km=manager, timeout=300, allow_errors=False, shutdown_kernel="immediate",
                       resources={"metadata": {"path": folder}}).execute()
    return nb


def checks(nb):
    """{step title: (passed, the line it printed or the error it raised)} of the check cells."""
    found = {}
    for cell in nb.cells:
        if RAISES not in cell.metadata.get("tags", []):
            continue
        title = re.search(r"check_step\('([^']*)'", cell.source).group(1)
        errors = [o for o in cell.outputs if o["output_type"] == "error"]
        if errors:
            found[title] = (False, f"{errors[0]['ename']}: {errors[0]['evalue']}")
        else:
            found[title] = (True, "".join(o.get("text", "") for o in cell.outputs).strip())
    return found


def solved(nb, solutions):
    """A copy of `nb`, outputs cleared, each stub cell named in `solutions` holding its solution instead."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            name = re.match(r"def (\w+)\(", cell.source)
            if name and name.group(1) in solutions:
                cell.source = textwrap.dedent(solutions[name.group(1)]).strip("\n")
    return nb


@pytest.fixture(scope="module")
def built(generated):
    import nbformat

    return nbformat.read(generated / NOTEBOOK, as_version=4)


def test_the_shipped_notebook_shows_every_check_failing(built):
    found = checks(built)
    assert list(found) == [title for title, _ in kit_template.STEPS], "the built notebook has a check per kit step"
    for title, (passed, said) in found.items():
        assert not passed and said == f"AssertionError: FAIL  {title}  not implemented yet", \
            f"the shipped notebook shows each check failing with the kit's 'not implemented yet' ({title}: {said})"


def test_the_checks_fail_on_a_fresh_kernel_until_solved(built):
    found = checks(execute(solved(built, {})))
    assert len(found) == len(kit_template.STEPS)
    for title, (passed, said) in found.items():
        assert not passed and said.endswith(f"{title}  not implemented yet"), \
            f"an unsolved step's check raises with the kit's message ({title}: {said})"


def test_the_checks_pass_once_every_stub_is_solved(built):
    found = checks(execute(solved(built, SOLUTIONS)))
    for title, (passed, said) in found.items():
        cases = len(problems.kit_cases(problems.all_sets())[title])
        assert passed and said == f"PASS  {title}  {cases}/{cases} variants pass", \
            f"a correct solution passes its check on every variant and prints the kit's PASS line ({title}: {said})"


def test_a_half_right_solution_fails_with_the_kits_message(built):
    found = checks(execute(solved(built, {**SOLUTIONS, "scale_scores": UNSCALED})))
    wrong = {"scale_scores(Q, K)", "attention_end_to_end(X, W_Q, W_K, W_V, mask)"}  # the second calls the first
    assert {title for title, (passed, _) in found.items() if not passed} == wrong, \
        "forgetting the 1/√d_k fails exactly the steps that scale, and no other"
    said = found["scale_scores(Q, K)"][1]
    assert re.fullmatch(r"AssertionError: FAIL  scale_scores\(Q, K\)  \d+/\d+ variants pass; first failure: "
                        r"scale-scores-\d\d: entry \(\d, \d\) is -?[\d.]+, expected -?[\d.]+", said), \
        f"a wrong step fails with the kit's message, naming the variant and the entry ({said})"
