// The page skeleton, its style and its one script (analysis/reports/html_page.h).
#include "analysis/reports/html_page.h"

#include <cctype>
#include <utility>

namespace tf::html {

std::string escape(const std::string& text) {
    std::string escaped;
    for (const char c : text) {
        if (c == '&') escaped += "&amp;";
        else if (c == '<') escaped += "&lt;";
        else if (c == '>') escaped += "&gt;";
        else if (c == '"') escaped += "&quot;";
        else escaped += c;
    }
    return escaped;
}

namespace {

// The character reference that markdown::literal may have written at text[at] — &amp; &lt; &gt;
// &quot; or &#N; for an ASCII character — as its length and its HTML (the named ones as they are,
// an &#N; as its character, so the page keeps to XML's five named entities); length 0 if none.
std::pair<std::size_t, std::string> markdown_reference(const std::string& text, std::size_t at) {
    for (const char* named : {"&amp;", "&lt;", "&gt;", "&quot;"})
        if (text.compare(at, std::char_traits<char>::length(named), named) == 0) return {std::char_traits<char>::length(named), named};
    if (text.compare(at, 2, "&#") != 0) return {0, ""};
    std::size_t end = at + 2;
    int code = 0;
    while (end < text.size() && end < at + 5 && std::isdigit(static_cast<unsigned char>(text[end]))) code = code * 10 + (text[end++] - '0');
    if (end == at + 2 || end >= text.size() || text[end] != ';' || code >= 128) return {0, ""};
    return {end + 1 - at, escape(std::string(1, static_cast<char>(code)))};
}

}  // namespace

std::string escape_keeping_references(const std::string& text) {
    std::string escaped;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (const auto [length, html] = markdown_reference(text, i); length > 0) {
            escaped += html;
            i += length - 1;
        } else {
            escaped += escape(std::string(1, text[i]));
        }
    }
    return escaped;
}

std::string inline_markup(const std::string& text) {
    std::string out, plain;   // plain: the text since the last marker, escaped when the next comes
    const auto flush = [&] {
        out += escape_keeping_references(plain);
        plain.clear();
    };
    bool in_code = false, in_bold = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '`') {
            flush();
            out += in_code ? "</code>" : "<code>";
            in_code = !in_code;
        } else if (!in_code && text.compare(i, 2, "**") == 0) {
            flush();
            out += in_bold ? "</strong>" : "<strong>";
            in_bold = !in_bold;
            ++i;
        } else {
            plain += text[i];
        }
    }
    flush();
    if (in_code) out += "</code>";
    if (in_bold) out += "</strong>";
    return out;
}

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em auto;max-width:62em;padding:0 1em;line-height:1.45}"
    "table{border-collapse:collapse;margin:1em 0;font-size:14px}"
    "aside.findings{border:2px solid #0072B2;border-radius:6px;background:#f2f7fb;padding:0.2em 1.2em;margin:1em 0}"
    "aside.findings h2{margin:0.5em 0 0.2em;font-size:1.2em}aside.findings li{margin:0.35em 0}"
    "th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}"
    "table.sortable th{cursor:pointer;background:#f2f4f8}"
    "figure{margin:1em 0}figcaption{font-size:13px;color:#555}svg{max-width:100%;height:auto}"
    "code{background:#f4f4f4;padding:0 3px}"
    ".viewer-views{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}.viewer-static{margin:0;max-width:30em}"
    "table.viewer-grid{border-collapse:collapse;margin:0;font-family:monospace;font-size:12px}"
    "table.viewer-grid th{padding:1px 3px;border:0;background:none;font-weight:normal;white-space:pre}"
    "table.viewer-grid thead th{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left}"
    "table.viewer-grid tbody th{text-align:right}"
    "table.viewer-grid td{width:14px;height:14px;padding:0;border:1px solid #f0f0f0}"
    "table.viewer-grid tr:hover th{outline:2px solid #0072B2}.viewer-grid .position{color:#888}";

// Two behaviours: sorting a table by a clicked header (numbers by value, "0.91 ± 0.02" by 0.91, other
// text alphabetically; a second click reverses), and the attention viewer (attention_viewer.h).
// Two markers on <html> for a test in a headless browser: data-script-error holds the first error
// (thrown, or written to the console), data-script-done says the script ran to its end (a syntax
// error stops a script before its first line, so no error hook of its own could report it).
// Written without the characters an XML check reads as markup.
constexpr const char* kScript = R"js(
function report_error(message) {
  var page = document.documentElement;
  if (!page.hasAttribute("data-script-error")) page.setAttribute("data-script-error", String(message));
}
window.onerror = report_error;
var console_error = console.error;
console.error = function () {
  report_error(Array.from(arguments).join(" "));
  console_error.apply(console, arguments);
};
function cell_value(row, column) {
  var text = row.cells[column].textContent.trim();
  var number = parseFloat(text);
  return isNaN(number) ? text : number;
}
function sort_by(header) {
  var table = header.closest("table");
  var body = table.tBodies[0];
  var column = header.cellIndex;
  var direction = header.getAttribute("data-sorted") === "up" ? -1 : 1;
  table.querySelectorAll("th").forEach(function (other) { other.removeAttribute("data-sorted"); });
  header.setAttribute("data-sorted", direction === 1 ? "up" : "down");
  var rows = Array.from(body.rows);
  rows.sort(function (a, b) {
    var x = cell_value(a, column), y = cell_value(b, column);
    if (typeof x !== typeof y) { x = String(x); y = String(y); }
    return direction * (x > y ? 1 : (y > x ? -1 : 0));
  });
  rows.forEach(function (row) { body.appendChild(row); });
}
document.querySelectorAll("table.sortable th").forEach(function (header) {
  header.addEventListener("click", function () { sort_by(header); });
});
// The attention viewer: the chosen map as a table, query tokens down and key tokens across, each
// with its position; cell (i, j) is shaded by weight[i][j] over row i's largest, its tooltip the
// number; the caption follows the chosen map's kind (the option's data-caption).
function label_cell(cell, position, token) {
  var number = document.createElement("span"), text = document.createElement("span");
  number.className = "position";
  number.textContent = position;
  text.className = "token";
  text.textContent = token;
  cell.appendChild(number);
  cell.appendChild(document.createTextNode(" "));
  cell.appendChild(text);
}
function weight_text(weight) {
  return typeof weight === "number" ? weight.toFixed(4) : "not a number";
}
function show_attention(viewer) {
  var examples = JSON.parse(viewer.querySelector("script.attention-data").textContent);
  var example_choice = viewer.querySelector("select.viewer-example");
  var choice = viewer.querySelector("select.viewer-choice");
  var caption = viewer.querySelector(".viewer-caption"), grid = viewer.querySelector("div.viewer-grid");
  function draw() {
    var map = examples[Number(example_choice.value)].maps[Number(choice.value)];
    caption.textContent = choice.options[choice.selectedIndex].getAttribute("data-caption");
    var table = document.createElement("table");
    table.className = "viewer-grid";
    var head = table.createTHead().insertRow();
    head.appendChild(document.createElement("th"));
    map.keys.forEach(function (token, j) {
      var cell = document.createElement("th");
      cell.scope = "col";
      label_cell(cell, j, token);
      head.appendChild(cell);
    });
    var body = table.createTBody();
    map.queries.forEach(function (token, i) {
      var row = body.insertRow();
      var label = document.createElement("th");
      label.scope = "row";
      label_cell(label, i, token);
      row.appendChild(label);
      var largest = Math.max.apply(null, map.weights[i]) || 1;
      map.weights[i].forEach(function (weight, j) {
        var cell = row.insertCell();
        cell.style.background = "rgba(213, 94, 0, " + Math.max(0, weight / largest) + ")";
        cell.title = "query " + i + " " + token + ", key " + j + " " + map.keys[j] + ": " + weight_text(weight);
      });
    });
    grid.textContent = "";
    grid.appendChild(table);
  }
  choice.addEventListener("change", draw);
  example_choice.addEventListener("change", draw);
  draw();
}
document.querySelectorAll(".attention-viewer").forEach(show_attention);
document.documentElement.setAttribute("data-script-done", "");
)js";

}  // namespace

std::string page(const std::string& title, const std::string& body) {
    return std::string("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>") + escape_keeping_references(title) +
           "</title>\n<style>" + kStyle + "</style></head>\n<body>\n" + body + "<script>" + kScript + "</script>\n</body></html>\n";
}

}  // namespace tf::html
