# Everything runs inside .venv, created from requirements.txt on first use.
#   make lab      open JupyterLab on the repository: README.md first, the notebooks, figures/
#   make test     re-run every notebook and compare every stored output (nbval) + checks
#   make test TORCH=2.14.1   the same on an older tested release, in its own .venv-torch-2.14.1
#   make test-releases       make test on every older release listed in releases.toml
#   make test PYTHON=python3.13   the same on another Python, in its own .venv-python3.13
#   make test-pythons        make test on every other Python listed in releases.toml
#   make bench    time each notebook's own cells and the suite against its floor (budgets)
#   make execute  re-execute notebooks in place and refresh figures/ (after editing one,
#                 or after upgrading PyTorch); then review with `make diff`
#   make diff     what `make execute` changed in the notebooks, cell by cell (nbdime)
#   make student  student copies in student/, through nbgrader (no solutions, no expected values);
#                 make student NB="01 04" refreshes those two and keeps the others
#   make grade SUBMISSIONS=DIR [NB="01 04 06"]   autograde a class folder (one folder per student)
#                 with nbgrader; grades, summary and feedback in DIR-graded/ (OUT=... elsewhere,
#                 TIMEOUT=seconds a cell may run, default 60)
#   make site     the collection as a static website in site/ (open site/index.html), from the
#                 stored outputs; fails on any warning or broken link. Launch buttons:
#                 make site SITE_REPOSITORY_URL=https://github.com/you/repo
#   make pages    docs/errors.md and docs/symptoms.md from the index data (autograd_pitfalls/index/)
#   make lock     after editing requirements.txt: re-pin what it pulls in (constraints.txt)
#   make clean    remove every environment (.venv*), student/ and site/
# TORCH_INDEX=URL takes torch from another package index, e.g. PyTorch's CPU-only builds
# (make lab TORCH_INDEX=https://download.pytorch.org/whl/cpu); the rest still comes from PyPI.

PYTHON ?= python3
# Another PyTorch release than the one pinned in requirements.txt (an environment of its own).
TORCH  ?=
TORCH_INDEX ?=
TORCH_VERSION := $(or $(TORCH),$(shell sed -n 's/^torch==//p' requirements.txt))
# Each PyTorch release and each Python named on the command line gets an environment of its own
# (.venv-torch-2.14.1, .venv-python3.13); the default one is .venv.
VENV   := .venv$(if $(TORCH),-torch-$(TORCH))$(if $(filter command line,$(origin PYTHON)),-$(notdir $(PYTHON)))
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-requirements
PIP    := $(BIN)/python -m pip install --disable-pip-version-check
# Which notebooks `make execute`, `make student` and `make grade` take: by number or file,
# NB="01 04" or NB=notebooks/01_double_backward.ipynb; every notebook when NB is empty.
NB     ?=
NB_FILES = $(if $(strip $(NB)),$(foreach n,$(NB),$(or $(wildcard $(n)),$(wildcard notebooks/$(n)_*.ipynb),\
  $(error NB: no notebook "$(n)": name notebooks by number or file, e.g. NB="01 04"))),$(wildcard notebooks/*.ipynb))

# The same kernel environment as the tests (conftest.py): one intra-op thread, fixed hashing.
export OMP_NUM_THREADS := 1
export PYTHONHASHSEED := 0

.PHONY: help venv lab test test-releases test-pythons bench execute diff student grade site pages lock clean
.DEFAULT_GOAL := help

help:
	@sed -n '2,/^$$/p' Makefile | sed -n 's/^# \{0,1\}//p'

# requirements.txt with its torch pin replaced by TORCH_VERSION, so that an older release
# gets exactly the same other packages. With TORCH_INDEX, torch alone comes from that index
# first (its dependencies then from PyPI, pinned by constraints.txt). Then this repository's
# own package, autograd_pitfalls (pyproject.toml: the index data, the doctor), in development
# mode and without dependencies, so that `autograd-doctor` and `%load_ext autograd_pitfalls`
# work in the venv and an edit of the package or its data needs no reinstall.
$(STAMP): requirements.txt constraints.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11 or newer is needed (PYTHON=$(PYTHON))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	sed 's/^torch==.*/torch==$(TORCH_VERSION)/' requirements.txt > $(VENV)/requirements.txt
	$(if $(TORCH_INDEX),$(PIP) --no-deps --index-url $(TORCH_INDEX) torch==$(TORCH_VERSION))
	$(PIP) -r $(VENV)/requirements.txt -c constraints.txt
	$(PIP) --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

# Rooted at the repository, so that README.md (its index of errors), the notebooks and figures/
# are all reachable; README.md opens first. lab/overrides.json, copied to where JupyterLab
# reads default settings (its application settings directory), shows Markdown files rendered,
# so README's links open the notebooks. JupyterLab refuses to start as root unless told to
# (containers, CI machines). nbgrader's own UI (formgrader, validate, assignment lists) is turned
# off there: this project grades with `make grade`, and that UI needs a course directory and an
# exchange this project does not use (lab/nbgrader_off.json, lab/page_config.json).
# LAB_ROOT=student opens the student copies (`make student`) instead, as a student sees them.
# LAB_OPTIONS passes more options, e.g. --no-browser --port=8888.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings
LAB_ROOT ?= .
LAB_OPTIONS ?=
lab: $(STAMP)
	mkdir -p $(LAB_SETTINGS) $(VENV)/etc/jupyter/labconfig $(VENV)/etc/jupyter/jupyter_server_config.d
	cp lab/overrides.json $(LAB_SETTINGS)/overrides.json
	cp lab/page_config.json $(VENV)/etc/jupyter/labconfig/page_config.json
	cp lab/nbgrader_off.json $(VENV)/etc/jupyter/jupyter_server_config.d/zz-nbgrader-off.json
	$(BIN)/jupyter lab --ServerApp.root_dir=$(LAB_ROOT) $(if $(filter 0,$(shell id -u)),--allow-root) --LabApp.default_url=/lab/tree/README.md $(LAB_OPTIONS)

# The work tree must be the same after the tests as before (figures are compared, not
# written). The fingerprint covers what git reports, the content of every change and of
# every untracked file, so a file that was already modified and is rewritten shows too.
TREE_STATE = { git status --porcelain; git diff --binary HEAD; \
  git ls-files -o --exclude-standard -z | xargs -0r sha1sum; } 2>/dev/null | sha1sum

test: $(STAMP)
	@if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  echo "make test: not a git checkout, so the check that the tests leave the tree unchanged is skipped"; \
	  exec $(BIN)/python -m pytest; fi; \
	before="$$($(TREE_STATE))"; \
	$(BIN)/python -m pytest; status=$$?; \
	after="$$($(TREE_STATE))"; \
	if [ "$$before" != "$$after" ]; then \
	  echo "make test changed the work tree:"; git status --short; exit 1; fi; \
	exit $$status

# The same suite on every older release in releases.toml, each in its own environment.
OLDER_TORCH = $(shell $(PYTHON) -c 'import tomllib; print(*tomllib.load(open("releases.toml", "rb"))["older"])')
test-releases:
	@test -n "$(OLDER_TORCH)" || { echo "make test-releases: $(PYTHON) could not read the releases of releases.toml (3.11 or newer needed)"; exit 1; }
	@for release in $(OLDER_TORCH); do $(MAKE) --no-print-directory test TORCH=$$release || exit 1; done

# The same suite on every other Python in releases.toml, each in its own environment: python3.X
# from PATH, else from pyenv's versions ($PYENV_ROOT, or ~/.pyenv; the pyenv command is not needed).
OTHER_PYTHONS = $(shell $(PYTHON) -c 'import tomllib; print(*tomllib.load(open("releases.toml", "rb"))["pythons"][1:])')
test-pythons:
	@test -n "$(OTHER_PYTHONS)" || { echo "make test-pythons: $(PYTHON) could not read the Pythons of releases.toml (3.11 or newer needed)"; exit 1; }
	@for v in $(OTHER_PYTHONS); do \
	  py=$$(command -v python$$v >/dev/null && python$$v -c '' 2>/dev/null && echo python$$v || \
	        ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/$$v.*/bin/python$$v 2>/dev/null | sort -V | tail -n 1); \
	  test -n "$$py" || { echo "make test-pythons: no Python $$v found (python$$v on PATH, or pyenv)"; exit 1; }; \
	  $(MAKE) --no-print-directory test PYTHON=$$py || exit 1; done

bench: $(STAMP)
	$(BIN)/python -m testsuite.bench

# Executed in one fresh kernel each, then saved as JupyterLab saves a notebook after a run
# (adjacent outputs of one stream merged), so that a learner's Run-All and save changes nothing.
execute: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.timeout=120 --ExecutePreprocessor.record_timing=False $(NB_FILES)
	$(BIN)/jupyter nbconvert --to notebook --inplace --CoalesceStreamsPreprocessor.enabled=True $(NB_FILES)

diff: $(STAMP)
	$(BIN)/nbdiff --sources --outputs HEAD -- notebooks

# A self-contained folder to hand out (classroom/release.py): nbgrader's release of every
# notebook, the helper modules they import, figures/, a README and requirements for students.
student: $(STAMP)
	$(BIN)/python -m classroom.release student $(NB_FILES)

# DIR holds one folder per student with the notebooks they handed in (classroom/grade.py).
SUBMISSIONS ?=
OUT ?=
TIMEOUT ?=
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=DIR [NB=\"01 04\"] (one folder per student)"; exit 2; }
	$(BIN)/python -m classroom.grade $(SUBMISSIONS) $(if $(strip $(NB)),--notebooks $(NB_FILES)) \
	  $(if $(OUT),--out $(OUT)) $(if $(TIMEOUT),--timeout $(TIMEOUT))

# The static site: Sphinx with myst-nb renders README.md and notebooks/*.ipynb from their stored
# outputs (settings in site_src/conf.py). Any warning fails the build; then every notebook must
# have its page and every internal link and image of the built pages must resolve
# (site_src/check_site.py), and the work tree must be as it was (everything is written under
# site/, which git ignores).
site: $(STAMP)
	@rm -rf site; before="$$($(TREE_STATE))"; \
	$(BIN)/sphinx-build -q -W --keep-going -b html -c site_src . site && \
	$(BIN)/python site_src/check_site.py site || exit 1; \
	rm -rf site/.doctrees; \
	if [ "$$before" != "$$($(TREE_STATE))" ]; then \
	  echo "make site changed the work tree:"; git status --short; exit 1; fi; \
	echo "Open site/index.html"

# The pages generated from the index data; tests/test_pages.py fails when they are stale.
pages: $(STAMP)
	$(BIN)/python -m autograd_pitfalls.pages

# After changing requirements.txt: re-pin everything it pulls in (review the diff).
lock: $(STAMP)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt
	{ sed -n '1,5p' constraints.txt; $(BIN)/python -m pip freeze | grep -viE '^(torch|triton|nvidia-[a-z0-9-]+|cuda-[a-z-]+)=='; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf .venv .venv-* student site
