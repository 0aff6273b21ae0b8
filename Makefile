# The two commands a newcomer needs: `make demo` and `make test`.
# Each one creates/updates the local virtual environment (.venv) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo demo-footage test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/bruno demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

# Speed is measured here, as ratios within one run, never asserted in unit tests.
bench: $(STAMP)
	$(BIN)/python -m bench.referee_throughput
	$(BIN)/python -m bench.audio_speed
	$(BIN)/python -m bench.vision_speed
	$(BIN)/python -m bench.table_vision_speed
	$(BIN)/python -m bench.live_latency
	$(BIN)/python -m bench.review_speed

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis

# The card recogniser's training recipe: renders crops, trains from scratch, then fine-tunes on
# crops in the synthetic footage's print and on the pile's top card cut from synthetic footage,
# then once more with what the locator finds on bare tables (gingham among them) as not_card,
# then with the top and bottom parts of sunburst cards labelled with their card (and more
# bare tables, cut as today's locator cuts them), then with cards in the 2020s print (heavy
# italic digits with a shadow; needs Pillow and fonts-dejavu-core), then with crops cut by
# loose, localiser-like boxes, and last with the pile's top card through the webcam family,
# rendered and with the cards of real photos landing on it (REAL_FACE_SOURCES, cut out of
# ../shared/data's photos), then that step once more (so the shipped model was made: its first
# run drew the UNO back without the real deck's rim and outlined letters); writes
# models/cards.onnx (models/MODEL_CARD.md, steps 1-8).
# Then the card localiser (models/train_localiser.py, about 15 CPU-minutes; its work files go
# to $BRUNO_CARDS_LAB, default /tmp/bruno-cards-lab, and a stopped run resumes there); writes
# models/localiser.onnx. It reads the real photos in ../shared/data when they are there.
# torch lives in its own venv (.venv-train); the runtime never imports it.
TRAIN_VENV := .venv-train
REAL_FACE_SOURCES := aiswarya_flip,mabrao,natnael_k,nuno_highres,nuno_set1,nuno_set2,omar_masri_bicocca,r3xol_row,soloskino1,svolsch
.PHONY: train-cards
train-cards:
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install --quiet -e '.[train]'
	$(TRAIN_VENV)/bin/python -m models.train_cards --out /tmp/bruno-cards-base.onnx
	$(TRAIN_VENV)/bin/python -m models.train_cards --init /tmp/bruno-cards-cache/checkpoint.pt \
		--footage-crops 6000 --pile-crops --epochs 3 --lr 1e-3 --out /tmp/bruno-cards-footage.onnx
	cp /tmp/bruno-cards-cache/checkpoint.pt /tmp/bruno-cards-footage.pt
	$(TRAIN_VENV)/bin/python -m models.train_cards --init /tmp/bruno-cards-footage.pt \
		--footage-crops 6000 --pile-crops --table-negatives 300 --epochs 2 --lr 5e-4 \
		--out /tmp/bruno-cards-tables.onnx
	cp /tmp/bruno-cards-cache/checkpoint.pt /tmp/bruno-cards-tables.pt
	$(TRAIN_VENV)/bin/python -m models.train_cards --init /tmp/bruno-cards-tables.pt \
		--footage-crops 6000 --pile-crops --table-negatives 400 --part-crops 3000 \
		--epochs 2 --lr 5e-4 --out /tmp/bruno-cards-parts.onnx
	cp /tmp/bruno-cards-cache/checkpoint.pt /tmp/bruno-cards-parts.pt
	$(TRAIN_VENV)/bin/python -m models.train_cards --init /tmp/bruno-cards-parts.pt \
		--footage-crops 6000 --pile-crops --table-negatives 400 --part-crops 3000 \
		--print2020-crops 6000 --epochs 3 --lr 5e-4 --out /tmp/bruno-cards-print2020.onnx
	$(TRAIN_VENV)/bin/python -m models.train_cards --init-onnx /tmp/bruno-cards-print2020.onnx \
		--train 3000 --val 600 --footage-crops 1000 --pile-crops --pile-games 25 \
		--table-negatives 100 --part-crops 600 --print2020-crops 1000 --located-crops 5000 \
		--loose-real --epochs 2 --lr 5e-4 --threads 1 --out /tmp/bruno-cards-located.onnx
	$(TRAIN_VENV)/bin/python -m models.train_cards --init-onnx /tmp/bruno-cards-located.onnx \
		--train 3000 --val 600 --footage-crops 1000 --pile-crops --pile-games 25 \
		--table-negatives 100 --part-crops 600 --print2020-crops 1000 --located-crops 5000 \
		--loose-real --webcam-pile-games 40 --webcam-real-games 40 \
		--webcam-real-faces $(REAL_FACE_SOURCES) --epochs 2 --lr 5e-4 --threads 2 \
		--out /tmp/bruno-cards-real.onnx
	$(TRAIN_VENV)/bin/python -m models.train_cards --init-onnx /tmp/bruno-cards-real.onnx \
		--train 3000 --val 600 --footage-crops 1000 --pile-crops --pile-games 25 \
		--table-negatives 100 --part-crops 600 --print2020-crops 1000 --located-crops 5000 \
		--loose-real --webcam-pile-games 40 --webcam-real-games 40 \
		--webcam-real-faces $(REAL_FACE_SOURCES) --epochs 2 --lr 5e-4 --threads 1
	$(TRAIN_VENV)/bin/python -m models.train_localiser --keep-test-photos --epochs 4 \
		--out /tmp/bruno-localiser-base.onnx
	$(TRAIN_VENV)/bin/python -m models.train_localiser --keep-test-photos --images 4000 \
		--seed 22 --epochs 3 --lr 1e-3 \
		--init $${BRUNO_CARDS_LAB:-/tmp/bruno-cards-lab}/all/checkpoint.pt \
		--name ft-all --out models/localiser.onnx

# The card localiser's leave-one-group-out check (models/MODEL_CARD.md): one model per fold of
# real sources, written to $(LOCALISER_FOLDS) with the shipped one beside it, then scored.
LOCALISER_FOLDS ?= /tmp/bruno-cards-lab/folds
.PHONY: evaluate-localiser
evaluate-localiser:
	for fold in wood cards-dev dark-wide; do \
		$(TRAIN_VENV)/bin/python -m models.train_localiser --fold $$fold --name fold-$$fold \
			--out $(LOCALISER_FOLDS)/fold-$$fold-base.onnx || exit 1; \
		$(TRAIN_VENV)/bin/python -m models.train_localiser --fold $$fold --name ft-$$fold \
			--images 4000 --seed 22 --epochs 3 --lr 1e-3 \
			--init $${BRUNO_CARDS_LAB:-/tmp/bruno-cards-lab}/fold-$$fold/checkpoint.pt \
			--out $(LOCALISER_FOLDS)/fold-$$fold.onnx || exit 1; \
		rm $(LOCALISER_FOLDS)/fold-$$fold-base.onnx; done
	cp models/localiser.onnx $(LOCALISER_FOLDS)/shipped.onnx
	$(BIN)/python -m evaluation.cards --localiser $(LOCALISER_FOLDS)

# Re-render the bundled demo footage (examples/demo) from its scenario, after checking that the
# scenario still gives every penalty rule.
demo-footage: $(STAMP)
	$(BIN)/python -m synth.demo_footage

# The knock classifier's recipe (models/knocks/, issue 20): an augmented bank of onsets from
# every real knock source and the synthetic card slaps (and the v4 bank: 2 copies of each
# negative; and a bank of table talk spoken by espeak-ng, models/knocks/table_talk.py, which
# needs `apt install espeak-ng`), then three models, each with the table talk, on all sources except the last fifth of each one's knocks (the
# shipped model's test subset, tests/test_knock_holdout.py): on the v4 bank, on the first 2
# and on all 6 copies of the v5 bank's negatives, joined into models/knocks.onnx (their mean
# logit) with its line (logit 0);
# `python -m models.knocks.evaluate_loso` validates the recipe leave-one-source-out
# (models/knocks/REPORT.md). Work files go to $BRUNO_KNOCK_LAB (default
# /tmp/bruno-knock-lab), never into the repository.
KNOCK_LAB ?= $${BRUNO_KNOCK_LAB:-/tmp/bruno-knock-lab}
.PHONY: train-knocks
train-knocks:
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install --quiet -e '.[train]'
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks bank
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks bank --v4
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks bank --talk
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks train --hold-out-test-subset \
		--talk --v4-bank --out $(KNOCK_LAB)/ship_v4_bank_talk.onnx
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks train --hold-out-test-subset \
		--talk --negative-copies 6 --out $(KNOCK_LAB)/ship_all_copies_talk.onnx
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks train --hold-out-test-subset \
		--talk --out $(KNOCK_LAB)/ship_two_copies_talk.onnx
	$(TRAIN_VENV)/bin/python -m models.knocks.ensemble models/knocks.onnx \
		$(KNOCK_LAB)/ship_v4_bank_talk.onnx $(KNOCK_LAB)/ship_two_copies_talk.onnx \
		$(KNOCK_LAB)/ship_all_copies_talk.onnx
	$(TRAIN_VENV)/bin/python -m models.knocks.train_knocks set-threshold models/knocks.onnx 0
