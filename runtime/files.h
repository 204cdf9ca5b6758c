// Whole-file reads for the runtime (cache entries, compiler outputs, modules).
#pragma once

#include <optional>
#include <string>

namespace kiln::runtime {

// The file's bytes, or nullopt when it cannot be opened or read.
std::optional<std::string> read_file(const std::string& path);

// The file's bytes; Error naming `what` and the reason when it cannot be read.
std::string read_file_or_throw(const std::string& path, const std::string& what);

}  // namespace kiln::runtime
