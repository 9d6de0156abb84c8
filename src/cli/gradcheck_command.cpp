// `tapeformer gradcheck [op]`: runs the gradcheck table (autograd/op_checks.h and the fused
// attention ops of layers/attention/fused_op_checks.h), one line per op.
// `tapeformer gradcheck --layer TYPE [--set key=value]...`: one registered layer, one line per tensor.
#include <iomanip>
#include <iostream>
#include <map>

#include "autograd/error.h"
#include "cli/commands.h"
#include "config/json_file.h"
#include "layers/attention/fused_op_checks.h"
#include "layers/layer_gradcheck.h"
#include "layers/builtin_layers.h"

namespace tf::cli {

namespace {

int run_gradcheck(const std::string& only_op) {
    std::map<std::string, std::vector<const OpCheck*>> by_op;
    std::vector<std::string> order;
    for (const OpCheck& check : all_op_checks()) {
        if (!by_op.count(check.op)) order.push_back(check.op);
        by_op[check.op].push_back(&check);
    }
    if (!only_op.empty() && !by_op.count(only_op)) {
        std::string known;
        for (const auto& name : order) known += (known.empty() ? "" : ", ") + name;
        throw ValueError("gradcheck: unknown op '" + only_op + "'; known: " + known);
    }
    bool all_ok = true;
    for (const std::string& op : order) {
        if (!only_op.empty() && op != only_op) continue;
        bool op_ok = true;
        std::string failure;
        for (const OpCheck* check : by_op[op]) {
            const GradcheckResult result = gradcheck(check->fn, check->make_inputs());
            if (!result.ok && op_ok) failure = check->variant + ": " + result.message;
            op_ok = op_ok && result.ok;
        }
        all_ok = all_ok && op_ok;
        std::cout << std::left << std::setw(24) << op << (op_ok ? "ok  " : "FAIL") << "  " << by_op[op].size()
                  << (by_op[op].size() == 1 ? " case" : " cases") << (op_ok ? "" : "  " + failure) << "\n";
    }
    return all_ok ? 0 : 1;
}

}  // namespace

void add_gradcheck_command(CLI::App& app, int& exit_code) {
    auto* command = app.add_subcommand(
        "gradcheck", "Check every op's backward (or one op's, or one layer's) against central differences in f64.");
    command->footer("A layer is built from {\"type\": TYPE} plus its --set keys at width 4 in f64; x is (2, 5, 4), the\n"
                    "memory (2, 4, 4). Exit 0: every tensor matches; 1: a mismatch, or a parameter the output\n"
                    "ignores; 2: an unknown op or type, or a key the layer needs (named in the message).\n"
                    "Examples:\n  tapeformer gradcheck\n  tapeformer gradcheck softmax\n"
                    "  tapeformer gradcheck --layer local_conv_mixer --set kernel_size=3\n"
                    "  tapeformer gradcheck --layer transformer_decoder_block --set heads=2 --memory --causal");
    auto only_op = std::make_shared<std::string>();
    auto layer = std::make_shared<LayerGradcheckOptions>();
    auto layer_keys = std::make_shared<std::vector<std::string>>();
    auto* op_option = command->add_option("op", *only_op, "only this op");
    auto* layer_option = command->add_option("--layer", layer->type, "check this registered layer, its input and every parameter");
    op_option->excludes(layer_option);
    command->add_option("--set", *layer_keys, "a key of the layer's config: --set heads=2 (repeatable)")->needs(layer_option);
    command->add_option("--width", layer->width, "the model width C (default 4)")->check(CLI::Range(1, 32))->needs(layer_option);
    command->add_flag("--causal", layer->causal, "run the layer with context.causal set")->needs(layer_option);
    command->add_flag("--memory", layer->memory,
                      "give the layer an encoder memory (2, 4, C) and check it too: cross-attention, and layers that "
                      "need one (transformer_decoder_block)")->needs(layer_option);
    command->callback([only_op, layer, layer_keys, &exit_code] {
        if (layer->type.empty()) {
            exit_code = run_gradcheck(*only_op);
            return;
        }
        for (const auto& assignment : *layer_keys) config::apply_override(layer->keys, assignment);
        exit_code = print_layer_gradcheck(builtin_layers(), *layer, std::cout);
    });
}

}  // namespace tf::cli
