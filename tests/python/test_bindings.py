"""The tapeformer Python module against the CLI it stands beside (docs/python.md).

    test_bindings.py TAPEFORMER SOURCE_DIR    (ctest runs it with Debian's python3 and PYTHONPATH=BUILD/python)

Each run is trained by both front doors, or by one and read by the other, and every number the
module returns must be the one the CLI prints for it: training losses, eval's report, reconstructed
and generated text, analyze's attention statistics and dependency kernel, theorems, the tape. Errors
must arrive as Python exceptions carrying the CLI's messages, bad input must raise (never crash the
interpreter), and Ctrl-C must stop training with the run saved and resumable.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

import tapeformer

TAPEFORMER, SOURCE_DIR = sys.argv[1], sys.argv[2]
POEMS = os.path.join(SOURCE_DIR, "data", "poetry", "poems.txt")

# A copy task small enough to train in a fraction of a second, logging and evaluating every step.
COPY = os.path.join(SOURCE_DIR, "configs", "copy_transformer.json")
COPY_OVERRIDES = ["model.d_model=16", "model.heads=2", "model.encoder_layers=1", "model.decoder_layers=1",
                  "model.ffn_hidden=32", "train.max_steps=30", "optimizer.schedule.warmup_steps=5",
                  "train.log_every=1", "train.eval_every=10", "train.checkpoint_every=10"]
# A character language model on the poetry corpus, as small.
LM = os.path.join(SOURCE_DIR, "configs", "char_lm.json")
LM_OVERRIDES = [f"data.path={POEMS}", "model.layers=1", "model.d_model=16", "model.heads=2", "model.ffn_hidden=32",
                "train.max_steps=20"]


def cli(*args, expect=0):
    """Runs the CLI; returns its stdout. Fails the test unless it exits with `expect`."""
    done = subprocess.run([TAPEFORMER, *args], capture_output=True, text=True)
    assert done.returncode == expect, f"tapeformer {' '.join(args)}: exit {done.returncode}, expected {expect}\n{done.stderr}"
    return done.stdout if expect == 0 else done.stderr


def cli_error(*args):
    """The message of the CLI's "error: ..." line for a command that must exit 2."""
    stderr = cli(*args, expect=2)
    assert stderr.startswith("error: "), stderr
    return stderr[len("error: "):].rstrip("\n")


def set_args(overrides):
    return [arg for assignment in overrides for arg in ("--set", assignment)]


def metrics(run_dir):
    """metrics.jsonl's rows without the one field that measures time."""
    with open(os.path.join(run_dir, "metrics.jsonl")) as rows:
        return [{key: value for key, value in json.loads(row).items() if key != "tokens_per_s"} for row in rows]


class Bindings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="tapeformer-python.")
        cls.copy_cli = os.path.join(cls.work, "copy-cli")
        cls.lm_cli = os.path.join(cls.work, "lm-cli")
        cli("train", COPY, *set_args(COPY_OVERRIDES), "--run-dir", cls.copy_cli, "--quiet")
        cli("train", LM, *set_args(LM_OVERRIDES), "--run-dir", cls.lm_cli, "--quiet")
        cls.copy = tapeformer.load_run(cls.copy_cli)
        cls.lm = tapeformer.load_run(cls.lm_cli)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work)

    def path(self, name):
        return os.path.join(self.work, name)

    # ── values equal the CLI's ────────────────────────────────────────────────────────────────────

    def test_training_from_a_file_or_a_dict_matches_the_cli_step_by_step(self):
        heard = []
        result = tapeformer.train(COPY, overrides=COPY_OVERRIDES, run_dir=self.path("copy-py"), on_step=heard.append)
        self.assertEqual(result["steps"], 30)
        self.assertFalse(result["stopped"])
        self.assertEqual(metrics(self.path("copy-py")), metrics(self.copy_cli))
        # The callback heard every step; logging every step, each row's loss is that step's.
        self.assertEqual([m["step"] for m in heard], list(range(1, 31)))
        self.assertEqual([m["loss"] for m in heard], [row["loss"] for row in metrics(self.copy_cli)])
        self.assertEqual(heard[9]["valid_loss"], metrics(self.copy_cli)[9]["valid_loss"])
        self.assertNotIn("valid_loss", heard[8])
        self.assertEqual(result["valid"]["loss"], heard[-1]["valid_loss"])
        # The same config as a dict, overrides as a dict: the same run.
        with open(COPY) as config_file:
            config = json.load(config_file)
        overrides = dict(assignment.split("=") for assignment in COPY_OVERRIDES)
        overrides = {key: int(value) for key, value in overrides.items()}
        tapeformer.train(config, overrides=overrides, run_dir=self.path("copy-dict"))
        self.assertEqual(metrics(self.path("copy-dict")), metrics(self.copy_cli))
        self.assertEqual(tapeformer.resolved_config(config, overrides),
                         json.loads(cli("config", "print", COPY, *set_args(COPY_OVERRIDES))))

    def test_evaluate_is_the_cli_eval_report(self):
        self.assertEqual(self.copy.evaluate(), json.loads(cli("eval", "--run", self.copy_cli)))
        self.assertEqual(self.lm.evaluate("valid"), json.loads(cli("eval", "--run", self.lm_cli, "--split", "valid")))

    def test_reconstruct_writes_what_the_cli_writes(self):
        texts = ["abcfed", "ab", "jihgfedcba"]
        for beam in (None, 3):
            args = ["reconstruct", "--run", self.copy_cli] + [arg for text in texts for arg in ("--input", text)]
            args += ["--beam", str(beam)] if beam else []
            printed = [line[len("output: "):] for line in cli(*args).splitlines() if line.startswith("output: ")]
            self.assertEqual(self.copy.reconstruct(texts, beam=beam), printed)
        self.assertEqual(self.copy.reconstruct("abcfed"), self.copy.reconstruct(["abcfed"])[0])

    def test_generate_samples_what_the_cli_samples(self):
        for options in ({"seed": 5, "top_k": 3}, {"seed": 2, "temperature": 0.7, "top_p": 0.9}):
            args = ["generate", "--run", self.lm_cli, "--prompt", "The sea", "--max-length", "12", "--json"]
            args += ["--seed", str(options["seed"])] + (["--top-k", "3"] if "top_k" in options else [])
            args += ["--temperature", "0.7", "--top-p", "0.9"] if "top_p" in options else []
            expected = json.loads(cli(*args))["generated"]
            self.assertEqual(self.lm.generate("The sea", max_length=12, **options), expected)

    def test_logits_are_what_greedy_decoding_reads(self):
        logits = self.lm.logits("The sea")
        self.assertEqual(logits.dtype, np.float32)
        self.assertEqual(logits.shape, (len(self.lm.encode("The sea")) + 1, self.lm.vocab_size))
        # The last row scores the token after the whole text: greedy decoding's first choice.
        following = self.lm.generate("The sea", top_k=1, max_length=1)
        self.assertEqual(self.lm.encode(following), [int(np.argmax(logits[-1]))])
        copy_logits = self.copy.logits("abc")   # <bos> a b c: predicting a, b, c, <eos>
        self.assertEqual(copy_logits.shape, (4, self.copy.vocab_size))

    def test_attention_and_dependency_kernel_are_what_analyze_measures(self):
        analysis_dir = self.path("analysis-cli")
        cli("analyze", "--run", self.copy_cli, "--out", analysis_dir)
        with open(os.path.join(analysis_dir, "analysis.json")) as written:
            analysis = json.load(written)
        maps = self.copy.attention()
        self.assertEqual([m["name"] for m in maps], [m["name"] for m in analysis["attention"]])
        for recorded, reported in zip(maps, analysis["attention"]):
            weights = recorded["weights"].astype(np.float64)
            self.assertEqual(weights.shape[1:], (len(recorded["query_tokens"]), len(recorded["key_tokens"])))
            np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)
            # analyze's entropy: −Σ α log α over a row's positive weights, averaged over the rows.
            logs = np.log(np.where(weights > 0, weights, 1.0))
            entropy = (-(weights * logs).sum(axis=-1)).mean(axis=-1)
            np.testing.assert_allclose(entropy, [head["entropy"] for head in reported["heads"]], rtol=1e-5)
        kernel = self.copy.dependency_kernel()
        np.testing.assert_array_equal(kernel["kernel"], np.array(analysis["dependency"]["kernel"]))
        self.assertEqual(kernel["receptive_field"], analysis["dependency"]["receptive_field"])
        # Run.analyze writes the same report and returns its data.
        returned = self.copy.analyze(out_dir=self.path("analysis-py"))
        self.assertEqual(returned, analysis)

    def test_theorems_are_the_cli_json_lines(self):
        lines = [json.loads(line) for line in cli("theorems", "--run", self.copy_cli, "--json").splitlines()]
        checks = tapeformer.theorems(self.copy)
        self.assertEqual([{k: v for k, v in c.items() if k not in ("short_statement", "key_number")} for c in checks], lines)
        self.assertEqual(len(tapeformer.theorems(seed=3)), 13)

    def test_compare_returns_its_report_data(self):
        config = os.path.join(SOURCE_DIR, "tests", "data", "tiny_comparison.json")
        report = tapeformer.compare(config, run_dir=self.path("compare"))
        with open(self.path("compare/report.json")) as written:
            self.assertEqual(report, json.load(written))
        self.assertEqual([v["name"] for v in report["variants"]], ["gru", "gru_attention", "transformer"])
        self.assertEqual([len(v["runs"]) for v in report["variants"]], [2, 2, 2])

    def test_the_tape_lists_what_the_cli_draws(self):
        printed = cli("tape", COPY, "--out", self.path("tape"))   # "179 entries: ..."
        entries = tapeformer.tape(COPY)
        self.assertEqual(len(entries), int(printed.split()[0]))
        self.assertEqual([e["index"] for e in entries], list(range(len(entries))))
        self.assertEqual(entries[-1]["op"], "cross_entropy")
        self.assertIn("softmax", [e["op"] for e in entries])   # the readable form: attention as its ops
        self.assertLess(len(tapeformer.tape(COPY, fast=True)), len(entries))
        tiny = COPY_OVERRIDES[:5]
        valued = tapeformer.tape(COPY, overrides=tiny + ["model.d_model=8", "model.ffn_hidden=8"], examples=1, tokens=4,
                                 values=True)
        for entry in valued:
            self.assertEqual(entry["value"].shape, entry["output_shape"])
        self.assertEqual(float(valued[-1]["grad"]), 1.0)   # dL/dL
        self.assertIsNone(entries[0]["value"])

    # ── NumPy ─────────────────────────────────────────────────────────────────────────────────────

    def test_tensors_copy_numpy_arrays_both_ways_keeping_dtype_and_shape(self):
        for dtype in (np.float32, np.float64):
            array = np.arange(24, dtype=dtype).reshape(2, 3, 4)
            tensor = tapeformer.Tensor(array)
            self.assertEqual((tensor.shape, tensor.dtype), ((2, 3, 4), np.dtype(dtype).name))
            out = tensor.numpy()
            self.assertEqual(out.dtype, dtype)
            np.testing.assert_array_equal(out, array)
            array[0, 0, 0] = 100   # a copy in: the tensor keeps its own numbers
            out[0, 0, 1] = 100     # a copy out: so does the tensor
            np.testing.assert_array_equal(tensor.numpy().ravel()[:2], [0, 1])
            np.testing.assert_array_equal(np.asarray(tensor), tensor.numpy())
            with self.assertRaisesRegex(ValueError, "always copied"):   # what NumPy 2's copy=False asks
                tensor.__array__(copy=False)
        strided = np.arange(12.0).reshape(3, 4).T   # not C-contiguous
        np.testing.assert_array_equal(tapeformer.Tensor(strided).numpy(), strided)
        self.assertEqual(tapeformer.Tensor(np.float32(2.5)).shape, ())
        self.assertEqual(tapeformer.Tensor([[1.0, 2.0]]).dtype, "float64")   # what numpy.asarray makes
        np.testing.assert_array_equal(tapeformer.Tensor(np.broadcast_to(np.float32(1), (2, 3))).numpy(), np.ones((2, 3)))
        with self.assertRaisesRegex(MemoryError, "no memory for a copy of 1000000000000 numbers"):   # 4 TB: no crash
            tapeformer.Tensor(np.broadcast_to(np.float32(1), (10**6, 10**6)))

    def test_other_dtypes_are_refused_with_a_value_error_naming_them(self):
        for values in (np.arange(3), np.array([True]), np.zeros(2, np.float16), np.zeros(2, np.complex64),
                       np.zeros(2, ">f4"), ["a", "b"]):
            with self.assertRaises(ValueError) as raised:
                tapeformer.Tensor(values)
            self.assertIn(str(np.asarray(values).dtype), str(raised.exception))
            self.assertIn("float32 or float64", str(raised.exception))

    # ── errors: the CLI's messages, as Python exceptions ──────────────────────────────────────────

    def test_errors_carry_the_cli_messages(self):
        bad = self.path("bad.json")
        with open(bad, "w") as config:
            json.dump({"model": {"type": "transformer", "headz": 4}}, config)
        cases = [
            (tapeformer.ConfigError, lambda: tapeformer.train(bad, run_dir=self.path("never")),
             ("train", bad, "--run-dir", self.path("never"))),
            (tapeformer.ConfigError, lambda: tapeformer.resolved_config(bad), ("config", "print", bad)),
            (tapeformer.ConfigError, lambda: tapeformer.train(COPY, overrides=["model.heads=3"]),
             ("train", COPY, "--set", "model.heads=3")),
            (tapeformer.ConfigError, lambda: tapeformer.train(), ("train",)),
            (tapeformer.ConfigError, lambda: tapeformer.load_run(self.path("missing")).evaluate(),
             ("eval", "--run", self.path("missing"))),
            (tapeformer.ConfigError, lambda: self.lm.reconstruct("x"), ("reconstruct", "--run", self.lm_cli, "--input", "x")),
            (tapeformer.ConfigError, lambda: self.copy.generate("a"), ("generate", "--run", self.copy_cli, "--prompt", "a")),
            (tapeformer.InputError, lambda: self.copy.reconstruct(""), ("reconstruct", "--run", self.copy_cli, "--input", "")),
            (tapeformer.ConfigError, lambda: tapeformer.train(resume=self.path("missing")),
             ("train", "--resume", self.path("missing"))),
        ]
        for error_class, call, cli_args in cases:
            with self.assertRaises(error_class) as raised:
                call()
            self.assertEqual(str(raised.exception), cli_error(*cli_args))
            self.assertIsInstance(raised.exception, ValueError)   # bad input is a ValueError too
        # A dict is read by the same strict reader: the same message as the file.
        with self.assertRaises(tapeformer.ConfigError) as raised:
            tapeformer.train({"model": {"type": "transformer", "headz": 4}}, run_dir=self.path("never"))
        self.assertEqual(str(raised.exception), cli_error("config", "check", bad))

    def test_bad_input_raises_and_never_crashes(self):
        broken = self.path("broken")
        shutil.copytree(self.copy_cli, broken)
        with open(os.path.join(broken, "best.safetensors"), "r+b") as weights:
            weights.truncate(100)
        calls = [
            (tapeformer.CheckpointError, lambda: tapeformer.load_run(broken)),
            (ValueError, lambda: tapeformer.load_run(self.copy_cli, weights="newest")),
            (TypeError, lambda: tapeformer.load_run(42)),
            (TypeError, lambda: tapeformer.train({"model": {1, 2}})),          # json.dumps: a set is not JSON
            (ValueError, lambda: tapeformer.train({"seed": float("nan")})),    # nor is NaN
            (tapeformer.ConfigError, lambda: tapeformer.train({"data": []})),
            (tapeformer.ConfigError, lambda: tapeformer.train(COPY, overrides=["no-equals-sign"])),
            (TypeError, lambda: tapeformer.train(COPY, overrides=[1])),
            (ValueError, lambda: self.copy.reconstruct("abc", beam=0)),
            (ValueError, lambda: self.copy.reconstruct("abc", cache="sometimes")),
            (ValueError, lambda: self.lm.generate("a", top_p=0.0)),
            (ValueError, lambda: self.lm.generate("x" * 500)),               # fills the model's positions
            (ValueError, lambda: self.copy.dependency_kernel(probes=-1)),
            (ValueError, lambda: self.copy.evaluate("dev")),
            (ValueError, lambda: self.copy.logits("")),
            (ValueError, lambda: tapeformer.tape(COPY, examples=0)),
            (tapeformer.ConfigError, lambda: tapeformer.tape(COPY, values=True)),   # too big to print every value
            (TypeError, lambda: self.copy.reconstruct(None)),
        ]
        for error_class, call in calls:
            with self.assertRaises(error_class):
                call()
        self.assertEqual(self.copy.reconstruct("abc"), self.copy.reconstruct("abc"))   # still alive, still the same

    # ── Ctrl-C, callbacks, the GIL ────────────────────────────────────────────────────────────────

    def test_ctrl_c_stops_training_saved_and_the_run_resumes(self):
        run_dir = self.path("interrupted")

        def press_ctrl_c():   # as a terminal's ^C or a notebook's "interrupt": while the run trains, GIL released
            log, logged = os.path.join(run_dir, "metrics.jsonl"), 0
            while logged < 3:   # three steps done
                time.sleep(0.01)
                if os.path.exists(log):
                    with open(log) as rows:
                        logged = rows.read().count("\n")
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=press_ctrl_c).start()
        with self.assertRaises(KeyboardInterrupt) as raised:
            tapeformer.train(COPY, overrides=COPY_OVERRIDES[:-3] + ["train.max_steps=100000", "train.log_every=1"],
                             run_dir=run_dir)
        message = str(raised.exception)
        self.assertRegex(message, rf"^stopped after step \d+, saved; continue with tapeformer.train\(resume='{run_dir}'\)$")
        stopped_at = int(message.split()[3].rstrip(","))
        self.assertGreaterEqual(stopped_at, 3)
        with open(os.path.join(run_dir, "checkpoints", "latest")) as latest:
            self.assertEqual(latest.read().strip(), f"step-{stopped_at}.safetensors")
        result = tapeformer.train(resume=run_dir, overrides={"train.max_steps": stopped_at + 5})
        self.assertEqual(result["steps"], stopped_at + 5)

    def test_a_stopped_run_resumes_to_the_same_losses(self):
        stopped = tapeformer.train(COPY, overrides=COPY_OVERRIDES, run_dir=self.path("halves"),
                                   on_step=lambda m: m["step"] < 15)
        self.assertEqual((stopped["steps"], stopped["stopped"]), (15, True))
        tapeformer.train(resume=self.path("halves"))
        self.assertEqual(metrics(self.path("halves")), metrics(self.copy_cli))

    def test_a_callback_exception_stops_the_run_and_is_raised_as_it_was(self):
        def fail_at_step_4(step_metrics):
            if step_metrics["step"] == 4:
                raise ArithmeticError("the callback's own")
        with self.assertRaisesRegex(ArithmeticError, "^the callback's own$"):
            tapeformer.train(COPY, overrides=COPY_OVERRIDES, run_dir=self.path("callback"), on_step=fail_at_step_4)
        self.assertEqual(tapeformer.load_run(self.path("callback"), weights="latest").step, 4)

    def test_other_python_threads_run_while_the_module_computes(self):
        ticks, done = [0], threading.Event()

        def tick():
            while not done.is_set():
                ticks[0] += 1
        ticker = threading.Thread(target=tick)
        ticker.start()
        try:
            started = ticks[0]
            self.lm.dependency_kernel("The sea was calm tonight", probes=0)   # exact: one backward row per token
            during = ticks[0] - started
        finally:
            done.set()
            ticker.join()
        # With the GIL held throughout, the ticker would stand still until the call returned.
        self.assertGreater(during, 1000)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
