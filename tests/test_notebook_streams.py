"""A notebook's printed output is the same bytes however the kernel cut it into flushes (issue 59): a print split
across two flushes (a slow array repr, a busy machine) had shipped as two stream outputs once and one the next time,
so a fresh kernel's run differed from the published notebook."""
import pytest

from figures_src.engine.notebooks import code, joined_streams, nbformat_notebook, run


def test_consecutive_writes_to_one_stream_are_one_output():
    outputs = [{"output_type": "stream", "name": "stdout", "text": "a"},
               {"output_type": "stream", "name": "stdout", "text": "b\n"},
               {"output_type": "stream", "name": "stderr", "text": "c\n"},
               {"output_type": "stream", "name": "stdout", "text": "d\n"}]
    assert joined_streams(outputs) == [{"output_type": "stream", "name": "stdout", "text": "ab\n"},
                                       {"output_type": "stream", "name": "stderr", "text": "c\n"},
                                       {"output_type": "stream", "name": "stdout", "text": "d\n"}], \
        "consecutive writes to one stream join; another stream between them keeps them apart"


@pytest.mark.slow  # starts a kernel
def test_a_print_flushed_in_two_pieces_ships_as_one_output():
    nb = nbformat_notebook([code('import sys\nprint("entropy:", end=" ")\nsys.stdout.flush()\nprint("[1.5802]")')])
    run(nb, {}, "streams.ipynb")
    assert nb.cells[0].outputs == [{"output_type": "stream", "name": "stdout", "text": "entropy: [1.5802]\n"}], \
        "a cell's printed lines are one stream output, however the kernel flushed them"


def test_a_notebook_with_markdown_cells_still_runs():
    from figures_src.engine.notebooks import markdown  # noqa: PLC0415

    nb = nbformat_notebook([markdown("# words"), code('print("one")')])
    run(nb, {}, "streams.ipynb")
    assert nb.cells[1].outputs == [{"output_type": "stream", "name": "stdout", "text": "one\n"}], \
        "a Markdown cell has no outputs to join: the run goes past it"
