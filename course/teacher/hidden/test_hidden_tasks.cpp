// The teacher's hidden tests: graded with their task like the others, but only in the teacher's tree
// (the student tree leaves course/teacher/ out; scripts/course.sh grade adds them to a tree it grades).
#include "catch.h"

#include "autograd/ops.h"
#include "helpers.h"
#include "layers/attention/masks.h"
#include "datasets/bpe.h"

using namespace tf;

TEST_CASE("hidden: the causal mask with more queries than keys hides key j from query i when j > i − (T − S)",
          "[unit][graded][A2.2]") {
    // T = 3 queries, S = 2 keys: query i sits at key position i − 1, so query 0 sees no key at all.
    {
        INFO("the causal mask table causal_mask(3, 2)");
        test::require_values(causal_mask(3, 2), {1, 1,
                                                 0, 1,
                                                 0, 0});
    }
    INFO("the causal mask table causal_mask(1, 1)");
    test::require_values(causal_mask(1, 1), {0});
}

TEST_CASE("hidden: BPE counts a pair once per chunk occurrence, weighted by how often the chunk occurs",
          "[unit][graded][A5.1]") {
    // "ab ab ab cd": the chunk "ab" three times ("ab" and " ab"), "cd" once; (a, b) is the most frequent pair.
    const train::BytePairEncoding bpe = train::BytePairEncoding::train_textbook({"ab ab ab cd"}, 4 + 256 + 1, 4);
    REQUIRE(bpe.merges().size() == 1);
    CHECK(bpe.merges().front() == train::BytePairEncoding::Pair{4 + 'a', 4 + 'b'});
}
