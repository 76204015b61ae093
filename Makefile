# Everything runs inside .venv, created from requirements.txt on first use.
#   make lab      open the notebooks in JupyterLab
#   make test     re-run every notebook and compare every stored output (nbval) + checks
#   make execute  re-execute notebooks in place and refresh figures/ (after editing one,
#                 or after upgrading PyTorch); then review with `make diff`
#   make diff     what `make execute` changed in the notebooks, cell by cell (nbdime)
#   make student  student copies in student/ (solutions removed, outputs cleared)
#   make lock     after editing requirements.txt: re-pin what it pulls in (constraints.txt)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-requirements
# Which notebooks `make execute` runs: make execute NB=notebooks/01_double_backward.ipynb
NB     ?= notebooks/*.ipynb

# The same kernel environment as the tests (conftest.py): one intra-op thread, fixed hashing.
export OMP_NUM_THREADS := 1
export PYTHONHASHSEED := 0

.PHONY: help venv lab test execute diff student lock clean
.DEFAULT_GOAL := help

help:
	@sed -n '2,9p' Makefile | sed 's/^# \{0,1\}//'

$(STAMP): requirements.txt constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11 or newer is needed (PYTHON=$(PYTHON))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt -c constraints.txt
	touch $(STAMP)

venv: $(STAMP)

# JupyterLab refuses to start as root unless told to (containers, CI machines).
lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

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

execute: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.timeout=120 --ExecutePreprocessor.record_timing=False $(NB)

diff: $(STAMP)
	$(BIN)/nbdiff --sources --outputs HEAD -- notebooks

# A self-contained folder to hand out: notebooks, the helper module they import, figures.
student: $(STAMP)
	rm -rf student
	$(BIN)/jupyter nbconvert --config student_copies.py --output-dir student/notebooks $(NB)
	cp notebooks/*.py student/notebooks/
	cp -r figures student/figures

# After changing requirements.txt: re-pin everything it pulls in (review the diff).
lock: $(STAMP)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.txt
	{ sed -n '1,5p' constraints.txt; $(BIN)/python -m pip freeze | grep -viE '^(torch|triton|nvidia-[a-z0-9-]+|cuda-[a-z-]+)=='; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) student
