// `tapeformer gradcheck [op]`: runs the gradcheck table (autograd/op_checks.h and the fused
// attention ops of layers/attention/fused_op_checks.h), one line per op.
#include <iomanip>
#include <iostream>
#include <map>

#include "autograd/error.h"
#include "layers/attention/fused_op_checks.h"
#include "cli/commands.h"

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
        "gradcheck", "Check every op's backward against central differences in f64 (or one op).");
    command->footer("Examples:\n  tapeformer gradcheck\n  tapeformer gradcheck softmax");
    auto only_op = std::make_shared<std::string>();
    command->add_option("op", *only_op, "only this op");
    command->callback([only_op, &exit_code] { exit_code = run_gradcheck(*only_op); });
}

}  // namespace tf::cli
