"""Several trained knock models as one ONNX file: the mean of their logits, their embeddings
side by side. The runtime (audio.knock_classifier) reads it like any single model.

    .venv-train/bin/python -m models.knocks.ensemble OUT.onnx A.onnx B.onnx [...]

Why: the members differ in their training bank and seed, and most of their false knocks are
not shared, while a real knock is heard by all of them; averaging the logits lowers the false
knocks more than the knocks (models/knocks/REPORT.md, v6). The room calibration's prototype
lives in the joined embedding (16 numbers per member); the members' embedding means are joined
the same way, so the runtime's centring stays right.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def merge(paths: list[Path], out: Path) -> None:
    """Write the ensemble of the models at `paths` (same inputs and patch spec) to `out`."""
    import onnx
    from onnx import compose, helper

    models = [onnx.load(str(p)) for p in paths]
    metas = [{p.key: p.value for p in m.metadata_props} for m in models]
    from audio.knock_classifier import PatchSpec

    # Compared as specs, not text: a model made before a field existed reads as its default.
    if len({PatchSpec(**json.loads(m["patch_spec"])) for m in metas}) != 1:
        raise SystemExit("the models' patch specs differ: they cannot be joined")
    first = models[0]
    inputs = [i.name for i in first.graph.input]
    nodes, initializers, logits, embeddings = [], [], [], []
    for k, model in enumerate(models):
        prefixed = compose.add_prefix(model, f"m{k}_")
        g = prefixed.graph
        for name in inputs:  # every member reads the shared inputs
            nodes.append(helper.make_node("Identity", [name], [f"m{k}_{name}"]))
        nodes += list(g.node)
        initializers += list(g.initializer)
        logits.append(f"m{k}_logit")
        embeddings.append(f"m{k}_embedding")
    axes = helper.make_tensor("unsqueeze_axes", onnx.TensorProto.INT64, [1], [1])
    initializers.append(axes)
    columns = []
    for name in logits:
        nodes.append(helper.make_node("Unsqueeze", [name, "unsqueeze_axes"], [name + "_col"]))
        columns.append(name + "_col")
    nodes.append(helper.make_node("Concat", columns, ["all_logits"], axis=1))
    nodes.append(helper.make_node("ReduceMean", ["all_logits"], ["logit"], axes=[1],
                                  keepdims=0))
    nodes.append(helper.make_node("Concat", embeddings, ["embedding"], axis=1))
    graph = helper.make_graph(
        nodes, "knock_ensemble", list(first.graph.input),
        [helper.make_tensor_value_info("logit", onnx.TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("embedding", onnx.TensorProto.FLOAT,
                                       ["n", 16 * len(models)])],
        initializers)
    merged = helper.make_model(graph, opset_imports=list(first.opset_import))
    merged.ir_version = first.ir_version
    means = []
    for m in metas:
        means += json.loads(m.get("embedding_mean", "[]"))
    meta = {**metas[0], "embedding_mean": json.dumps(means),
            "trained_by": "train_knocks.py, joined by models.knocks.ensemble: "
                          + ", ".join(p.name for p in paths)}
    for key, value in meta.items():
        entry = merged.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(merged)
    onnx.save(merged, str(out))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("members", type=Path, nargs="+")
    args = parser.parse_args(argv)
    merge(args.members, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
