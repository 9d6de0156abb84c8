// data/build_poetry.py: its cleaning rules on a small hand-made fortunes file, and the real corpus
// built from the Debian `fortunes` package (which scripts/setup.sh installs).
#include "catch.h"
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "run_helpers.h"
#include "datasets/dataset.h"
#include "source_paths.h"

namespace {

const std::string kScript = std::string(TF_SOURCE_DIR) + "/data/build_poetry.py";
const std::string kFortunes = "/usr/share/games/fortunes/songs-poems";

// Runs the script on `input`, returns the corpus text (REQUIREs a zero exit status).
std::string build_corpus(const std::string& input, const std::string& output) {
    const std::string command = "python3 '" + kScript + "' --input '" + input + "' --output '" + output + "' > /dev/null";
    REQUIRE(std::system(command.c_str()) == 0);
    std::ifstream in(output);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("build_poetry drops attributions, notes, quips, prose and column layouts", "[integration]") {
    const tf::test::TempDir dir("tapeformer-poetry");
    const std::string input = dir / "fortunes";
    std::ofstream(input) << "Roses are red,\n  violets\tare  blue;\n\nSugar is sweet\n"
                            "\t\t-- Anon,\n\t\t   \"Some Book\"\n%\n"
                            "Just one line.\n\t\t-- Somebody\n%\n"
                            "Tin'\buviel sang\n[chorus]\nand the night was long\n\t[Quoted in a manual,\n\t when asked.]\n%\n"
                            "A fitter fits;\t\tThough sinners sin\nA cutter cuts;\t\tAnd thinners thin\n%\n"
                            + std::string(3, 'x') + " " + std::string(80, 'p') + "\n" + std::string(90, 'q') + "\n";
    const std::string corpus = build_corpus(input, dir / "poems.txt");
    CHECK(corpus == "Roses are red,\nviolets are blue;\n\nSugar is sweet\n\nTinuviel sang\n\nand the night was long\n");
}

TEST_CASE("the poetry corpus from fortunes has stanzas and no attribution lines", "[integration]") {
    INFO("needs the Debian package 'fortunes' (scripts/setup.sh installs it): " << kFortunes);
    REQUIRE(std::filesystem::is_regular_file(kFortunes));
    const tf::test::TempDir dir("tapeformer-poetry");
    const std::string output = dir / "poems.txt";
    const std::string corpus = build_corpus(kFortunes, output);
    CHECK(build_corpus(kFortunes, output) == corpus);  // deterministic
    const auto stanzas = tf::train::read_text_items(output, tf::train::TextSplit::stanzas);
    CHECK(stanzas.size() >= 100);
    const std::regex attribution(R"((^|\n)\s*--)");
    for (const std::string& stanza : stanzas) {
        INFO(stanza);
        REQUIRE_FALSE(std::regex_search(stanza, attribution));
        REQUIRE(stanza.find('\t') == std::string::npos);
        REQUIRE(stanza.find('\b') == std::string::npos);
    }
}
