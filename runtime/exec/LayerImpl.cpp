//===- LayerImpl.cpp - every layer kind's code, by the table --------------===//

#include "LayerImpl.h"

#include <cstdlib>

namespace hdrt::exec {

// Each kind's file defines its accessor; a kind in LayerKinds.def without
// one does not link.
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics) const LayerImpl &Name##Impl();
#include "hdrt/LayerKinds.def"

const LayerImpl &layerImpl(LayerKind kind) {
  switch (kind) {
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics)                                         \
  case LayerKind::Name:                                                        \
    return Name##Impl();
#include "hdrt/LayerKinds.def"
  }
  std::abort(); // defineLayer accepts only the table's kinds
}

} // namespace hdrt::exec
