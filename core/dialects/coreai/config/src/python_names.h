// Names the Python reader needs from torch: which `nn.X` is which module type.
#pragma once

#include <optional>
#include <string_view>

namespace opscope::config::detail {

// "Linear" -> "torch.nn.modules.linear.Linear"; nullopt for a name torch.nn does not define.
std::optional<std::string_view> torch_nn_qualified_name(std::string_view class_name);

} // namespace opscope::config::detail
