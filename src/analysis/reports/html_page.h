// One self-contained HTML page: our CSS and a short script of our own inline, the plots inline as
// SVG, nothing fetched, so a report opens from file:// in a lab with no network. Everything is
// readable with scripts off; the script sorts a table by the column whose header is clicked and
// runs the attention viewer (analysis/reports/attention_viewer.h).
#pragma once
#include <string>

namespace tf::html {

// Text with & < > " escaped.
std::string escape(const std::string& text);

// The same, except for the character references that report text, which is Markdown, holds for
// foreign text (analysis/reports/markdown_text.h): &amp; &lt; &gt; &quot; stay as they are, an &#N; becomes
// its character (escaped), so each shows the character it stands for.
std::string escape_keeping_references(const std::string& text);

// Report text as HTML: escaped as escape_keeping_references does, `code` spans as <code>, **bold**
// as <strong>.
std::string inline_markup(const std::string& text);

// The whole page around `body`, titled with report text (character references kept). A script error marks the page (the <html> element's
// data-script-error attribute), so a headless browser's DOM dump shows it.
std::string page(const std::string& title, const std::string& body);

}  // namespace tf::html
