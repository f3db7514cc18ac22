#pragma once

#include "core/audit/audit.h"

#include <string>
#include <string_view>
#include <vector>

namespace stb {

// Flags that a normal, healthy model raises, marked AuditFlag::expected so that they are shown
// but not counted as findings (auditCheckpoint calls this):
//   - `num_batches_tracked`: every BatchNorm's counter, one equal scalar (0 before training),
//     so all-zero, constant and duplicates of one another: BatchNormCounter;
//   - BatchNorm `running_var` at 1 and `running_mean` at 0, and the weight (scale, gamma) at 1
//     or the bias (beta) at 0 of a normalisation layer (a group named like *norm*, ln*, bn*, or
//     holding running statistics): constant or all-zero, and duplicates of one another:
//     NormInitialisation;
//   - an output projection (lm_head, embed_out, output) equal to an input embedding
//     (embed_tokens, wte, word_embeddings, embed_in, tok_embeddings, shared), or two embeddings
//     equal to each other: a duplicate that is TiedEmbeddings.
// Leaves other flags alone; does not recompute the summary.
void markExpected(const Checkpoint &checkpoint, AuditResult &audit);

// What the user chose to ignore in one model: kinds of flag, and tensors by name.
struct AuditIgnores {
    std::vector<AuditFlag::Kind> kinds;
    std::vector<std::string> namePatterns; // globs over the full name: `*` any run, `?` one character

    bool empty() const { return kinds.empty() && namePatterns.empty(); }
};

// Marks the flags the user ignores (IgnoredRule before IgnoredName) after clearing earlier ignores;
// flags expected by markExpected stay as they are. Recomputes audit.summary.
void applyIgnores(const Checkpoint &checkpoint, AuditResult &audit, const AuditIgnores &ignores);

// `*` matches any run of characters (dots included), `?` one character; case-sensitive.
bool globMatch(std::string_view pattern, std::string_view name);

} // namespace stb
