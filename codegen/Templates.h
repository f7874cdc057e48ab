// The CUDA building blocks of templates/, embedded in the library at build
// time (codegen/EmbedTemplates.cmake) so that every generated .cu carries the
// ones it uses and compiles on its own.
#pragma once

#include <cstddef>
#include <string_view>

namespace bankwise::codegen {

struct EmbeddedTemplate {
  const char *Path; ///< relative to templates/: "bankwise/layout.cuh"
  const char *Text;
};

extern const EmbeddedTemplate EmbeddedTemplates[];
extern const std::size_t NumEmbeddedTemplates;

/// The text of templates/Path; empty when there is no such template.
std::string_view templateText(std::string_view Path);

} // namespace bankwise::codegen
