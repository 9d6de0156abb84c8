// Recording one training step and drawing its tape (analysis/reports/tape_view.h).
#include "analysis/reports/tape_view.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "analysis/reports/svg.h"
#include "autograd/op_formulas.h"
#include "autograd/ops.h"
#include "datasets/batching.h"
#include "train/evaluate.h"
#include "train/run_loader.h"

namespace tf {

std::vector<TapeNode> tape_nodes(const Tape& tape, const std::vector<std::pair<std::string, Tensor>>& named_parameters) {
    std::unordered_map<const AutogradMeta*, std::string> parameter_names;
    for (const auto& [name, parameter] : named_parameters) parameter_names[parameter.autograd_meta().get()] = name;
    std::unordered_map<const AutogradMeta*, std::size_t> producer;   // an entry's output → its index
    std::vector<TapeNode> nodes;
    for (const TapeEntry& entry : tape.entries()) {
        TapeNode node;
        node.index = nodes.size();
        node.op = entry.op;
        node.layer = entry.scope;
        node.input_shapes = entry.input_shapes;
        node.output_shape = entry.output_shape;
        node.dtype = entry.dtype;
        node.bytes = static_cast<std::size_t>(numel(entry.output_shape)) * dtype_size(entry.dtype);
        node.value = entry.value;
        for (const auto& input : entry.inputs) {
            if (!input) node.inputs.push_back("constant");
            else if (const auto found = producer.find(input.get()); found != producer.end())
                node.inputs.push_back(std::string("#").append(std::to_string(found->second)));   // not "#" + …: GCC 12's -Wrestrict misfires
            else if (const auto parameter = parameter_names.find(input.get()); parameter != parameter_names.end())
                node.inputs.push_back(parameter->second);
            else node.inputs.push_back("leaf");   // requires a gradient, but is no parameter of the model
        }
        producer[entry.output.get()] = node.index;
        nodes.push_back(std::move(node));
    }
    return nodes;
}

RecordedStep record_training_step(const train::RunConfig& config, const TapeStepSize& size, bool values) {
    const kernels::ReferenceKernels path(config.kernels);
    const train::Dataset dataset = train::load_dataset(config.data);
    const std::shared_ptr<SequenceModel> model = train::build_run_model(config, dataset);
    model->train();
    std::vector<train::Example> examples;
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < size.examples && i < static_cast<int64_t>(dataset.train.size()); ++i) {
        train::Example example = dataset.train[static_cast<std::size_t>(i)];
        for (std::vector<int64_t>* tokens : {&example.src, &example.tgt})
            tokens->resize(std::min(tokens->size(), static_cast<std::size_t>(size.max_tokens)));
        examples.push_back(std::move(example));
        rows.push_back(i);
    }
    const train::Batch batch = train::make_batch(examples, rows, dataset.is_lm());
    Tape& tape = Tape::current();
    tape.clear();
    Tensor loss;
    {
        const RecordScopes scopes;
        std::optional<RecordValues> keep_values;
        if (values) keep_values.emplace();
        loss = cross_entropy(model->forward(train::to_model_input(batch)), batch.tgt_out,
                             {train::kPadId, config.train.label_smoothing});
    }
    RecordedStep step{tape_nodes(tape, model->named_parameters()), ""};
    for (const TapeNode& node : step.nodes)
        if (values && numel(node.output_shape) > kMaxShownValues)
            throw ConfigError("--values prints every number, and entry #" + std::to_string(node.index) + " (" + node.op + ", " +
                              to_string(node.output_shape) + ") holds " + std::to_string(numel(node.output_shape)) +
                              ", more than " + std::to_string(kMaxShownValues) +
                              ": shrink the model (--set model.d_model=8 ...) or the step (--examples 1 --tokens 4)");
    std::vector<std::shared_ptr<AutogradMeta>> outputs;   // read after backward, which clears the tape
    for (const TapeEntry& entry : tape.entries()) outputs.push_back(entry.output);
    std::ostringstream dump;
    tape.dump(dump);
    step.dump = dump.str();
    tape.backward(loss);
    for (std::size_t i = 0; values && i < step.nodes.size(); ++i)
        if (outputs[i]->grad) step.nodes[i].grad = *outputs[i]->grad;   // none: the entry did not reach the loss
    return step;
}

namespace {

std::string shapes_text(const std::vector<Shape>& shapes) {
    std::string text;
    for (const Shape& shape : shapes) text += (text.empty() ? "" : ", ") + to_string(shape);
    return text;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string text;
    for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
    return text;
}

std::string layer_name(const std::string& layer) { return layer.empty() ? "(the model, outside its layers)" : layer; }

// Consecutive nodes recorded by one layer: the page's groups and the drawing's boxes.
struct LayerRun {
    std::string layer;
    std::size_t first = 0, count = 0, bytes = 0;
};

std::vector<LayerRun> layer_runs(const std::vector<TapeNode>& nodes) {
    std::vector<LayerRun> runs;
    for (const TapeNode& node : nodes) {
        if (runs.empty() || runs.back().layer != node.layer) runs.push_back({node.layer, node.index, 0, 0});
        ++runs.back().count;
        runs.back().bytes += node.bytes;
    }
    return runs;
}

// "backward: dx = …   docs/math/…", or a plain note for an op the table lacks.
std::string backward_line(const std::string& op) {
    const OpFormula* formula = find_op_formula(op);
    if (!formula) return "backward: (no formula in autograd/op_formulas.cpp)";
    return "backward: " + std::string(formula->backward) + "   " + std::string(formula->math);
}

// A tensor's numbers, one line per row of its last axis, each led by the row's index:
//   [0, 1]  0.1235 -0.5 2
std::string values_text(const Tensor& tensor, const std::string& indent) {
    const std::vector<double> values = tensor.to_vector();
    const int64_t width = tensor.dim() == 0 ? 1 : tensor.size(-1);
    std::string text;
    for (int64_t row = 0; width > 0 && row * width < static_cast<int64_t>(values.size()); ++row) {
        std::string index;   // the row's position in the leading axes
        for (int64_t axis = tensor.dim() - 2, rest = row; axis >= 0; --axis) {
            index = std::to_string(rest % tensor.size(axis)) + (index.empty() ? "" : ", ") + index;
            rest /= tensor.size(axis);
        }
        text += indent + "[" + index + "]";
        for (int64_t col = 0; col < width; ++col) {
            char number[32];
            std::snprintf(number, sizeof number, " %.4g", values[static_cast<std::size_t>(row * width + col)]);
            text += number;
        }
        text += "\n";
    }
    return text;
}

}  // namespace

std::string tape_text(const std::vector<TapeNode>& nodes) {
    std::ostringstream out;
    std::size_t total_bytes = 0;
    for (const TapeNode& node : nodes) {
        out << "#" << node.index << "  " << node.op << "  " << to_string(node.output_shape) << " " << dtype_name(node.dtype)
            << "  " << node.bytes << " bytes  in " << layer_name(node.layer) << "  reads " << joined(node.inputs) << "\n";
        out << "    " << backward_line(node.op) << "\n";
        if (node.value.defined()) out << "    value:\n" << values_text(node.value, "      ");
        if (node.grad.defined()) out << "    gradient dL/d(value):\n" << values_text(node.grad, "      ");
        else if (node.value.defined()) out << "    gradient: none (the loss does not depend on this entry)\n";
        total_bytes += node.bytes;
    }
    out << nodes.size() << " entries, " << total_bytes << " bytes of outputs\n";
    out << "backward walks them in reverse: #" << (nodes.empty() ? 0 : nodes.size() - 1) << " down to #0\n";
    return out.str();
}

std::string tape_svg(const std::vector<TapeNode>& nodes, const std::string& title) {
    const std::vector<LayerRun> runs = layer_runs(nodes);
    std::vector<std::size_t> run_of(nodes.size());
    for (std::size_t r = 0; r < runs.size(); ++r)
        for (std::size_t i = runs[r].first; i < runs[r].first + runs[r].count; ++i) run_of[i] = r;
    // Flow between boxes: box a → box b when a node of b reads a node of a (a ≠ b), counted.
    std::map<std::pair<std::size_t, std::size_t>, int> flows;
    for (const TapeNode& node : nodes)
        for (const std::string& input : node.inputs)
            if (input[0] == '#') {
                const std::size_t from = run_of[std::stoul(input.substr(1))], to = run_of[node.index];
                if (from != to) ++flows[{from, to}];
            }
    constexpr int kRowHeight = 26, kBoxWidth = 420, kLeft = 20, kTop = 40;
    const int height = kTop + static_cast<int>(runs.size()) * kRowHeight + 20;
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"" << height << "\" viewBox=\"0 0 760 " << height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg << "<text x=\"" << kLeft << "\" y=\"22\" font-size=\"15\">" << svg::escape(title) << "</text>\n";
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const int y = kTop + static_cast<int>(r) * kRowHeight;
        svg << "<g class=\"layer\"><title>" << svg::escape(layer_name(runs[r].layer)) << ": entries #" << runs[r].first << "–#"
            << runs[r].first + runs[r].count - 1 << ", " << runs[r].bytes << " bytes</title>"
            << "<rect x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << kBoxWidth << "\" height=\"" << kRowHeight - 6
            << "\" rx=\"4\" fill=\"#e8eef7\" stroke=\"#5b7db1\"/>"
            << "<text x=\"" << kLeft + 6 << "\" y=\"" << y + 14 << "\">" << svg::escape(layer_name(runs[r].layer)) << " ("
            << runs[r].count << (runs[r].count == 1 ? " op" : " ops") << ")</text></g>\n";
    }
    // Each flow as an arc on the right of the boxes, from the source box's middle to the reader's.
    for (const auto& [edge, count] : flows) {
        const int y_from = kTop + static_cast<int>(edge.first) * kRowHeight + (kRowHeight - 6) / 2;
        const int y_to = kTop + static_cast<int>(edge.second) * kRowHeight + (kRowHeight - 6) / 2;
        const int reach = std::min(300, 12 + 6 * std::abs(static_cast<int>(edge.second) - static_cast<int>(edge.first)));
        svg << "<path class=\"flow\" d=\"M " << kLeft + kBoxWidth << " " << y_from << " C " << kLeft + kBoxWidth + reach << " "
            << y_from << ", " << kLeft + kBoxWidth + reach << " " << y_to << ", " << kLeft + kBoxWidth << " " << y_to
            << "\" fill=\"none\" stroke=\"#c0504d\" stroke-opacity=\"0.5\"><title>" << count << " read"
            << (count == 1 ? "" : "s") << "</title></path>\n";
    }
    svg << "</svg>\n";
    return svg.str();
}

std::string tape_html(const std::vector<TapeNode>& nodes, const std::string& title) {
    std::ostringstream html;
    html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>" << svg::escape(title) << "</title>\n"
         << "<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;font-size:13px}"
         << "td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}summary{cursor:pointer;padding:3px 0}"
         << "code{font-size:13px}</style></head>\n<body>\n<h1>" << svg::escape(title) << "</h1>\n"
         << "<p>Every entry the tape recorded for one training step, in recording order (the forward pass, then the "
         << "loss), grouped by the layer that recorded it: click a layer to see its entries. An input reads "
         << "<code>#k</code> (entry k's output), a parameter, or a constant (data or a mask, which needs no "
         << "gradient). Backward walks the same entries in reverse (below).</p>\n"
         << tape_svg(nodes, title);
    for (const LayerRun& run : layer_runs(nodes)) {
        html << "<details class=\"group\"><summary>" << svg::escape(layer_name(run.layer)) << " — " << run.count
             << (run.count == 1 ? " entry" : " entries") << ", #" << run.first << "–#" << run.first + run.count - 1 << ", "
             << run.bytes << " bytes</summary>\n<table><tr><th>#</th><th>op</th><th>inputs</th><th>input shapes</th>"
             << "<th>output</th><th>bytes</th><th>backward</th></tr>\n";
        for (std::size_t i = run.first; i < run.first + run.count; ++i) {
            const TapeNode& node = nodes[i];
            html << "<tr class=\"node\" id=\"n" << node.index << "\"><td>" << node.index << "</td><td>" << svg::escape(node.op)
                 << "</td><td>";
            for (std::size_t k = 0; k < node.inputs.size(); ++k) {
                const std::string& input = node.inputs[k];
                html << (k ? ", " : "");
                if (input[0] == '#') html << "<a href=\"#n" << input.substr(1) << "\">" << input << "</a>";
                else html << svg::escape(input);
            }
            html << "</td><td>" << shapes_text(node.input_shapes) << "</td><td>" << to_string(node.output_shape) << " "
                 << dtype_name(node.dtype) << "</td><td>" << node.bytes << "</td><td>";
            if (const OpFormula* formula = find_op_formula(node.op))
                html << svg::escape(std::string(formula->backward)) << "<br/><code>" << svg::escape(std::string(formula->math))
                     << "</code>";
            html << "</td></tr>\n";
        }
        html << "</table></details>\n";
    }
    html << "<h2>The backward walk</h2>\n<p>From the loss back to the first entry: each entry's backward turns the "
         << "gradient of its output into its inputs' gradients.</p>\n<details><summary>" << nodes.size()
         << " entries in reverse</summary><ol class=\"backward\">\n";
    for (std::size_t i = nodes.size(); i-- > 0;)
        html << "<li value=\"" << i << "\">" << svg::escape(nodes[i].op) << " in " << svg::escape(layer_name(nodes[i].layer))
             << "</li>\n";
    html << "</ol></details>\n</body></html>\n";
    return html.str();
}

}  // namespace tf
