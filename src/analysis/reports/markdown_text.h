// Text that tapeformer did not write — a run's name, a path, a typed input, decoded text — inside
// a report (analysis/reports/report.h), whose text is Markdown and becomes report.html too. A name such as
// "<svg onload=…>" or "**x** | y" must show as those characters, never as markup.
#pragma once
#include <string>

namespace tf::markdown {

// `text` as literal characters: each character that Markdown or HTML could read as markup
// (& < > " ` | * _ [ ] # \ ~) becomes a character reference (&lt;, &#96;, …), which Markdown
// shows as the character and report.html keeps as it is (html::inline_markup); a line break
// becomes a space, so the text stays in its paragraph, heading or table cell. An underscore
// between two letters or digits, which Markdown never reads as emphasis, stays as it is, so a
// name such as compare_poetry reads plainly in report.md. Not for code spans, which show
// references as written.
std::string literal(const std::string& text);

}  // namespace tf::markdown
