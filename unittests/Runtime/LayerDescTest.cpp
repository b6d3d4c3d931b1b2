//===- LayerDescTest.cpp - layer descriptors and their text ---------------===//
//
// The descriptors LayerKinds.def declares: each struct is its fields in
// order, 8 bytes each; the text form of profile jobs round-trips every
// kind's fields, and a wrong field is named.
//
//===----------------------------------------------------------------------===//

#include "hdrt/LayerDesc.h"

#include <gtest/gtest.h>

using namespace hdrt;

TEST(LayerDesc, StructsAreTheirFieldsInOrder) {
  Conv2dDesc conv{64, {3, 5}, {1, 2}, {1, 2, 3, 4}, {1, 1}, 8, 1};
  LayerDescriptor d = LayerDescriptor::of(LayerKind::Conv2d, conv);
  EXPECT_EQ(d.bytes(), descriptorBytes(LayerKind::Conv2d));
  EXPECT_EQ(d.bytes(), sizeof(Conv2dDesc));
  EXPECT_EQ(descriptorToText(d), "out_channels=64;kernel=3,5;stride=1,2;"
                                 "padding=1,2,3,4;dilation=1,1;groups=8;"
                                 "bias=1");
  EXPECT_EQ(d.as<Conv2dDesc>().padding[3], 4);
  EXPECT_EQ(descriptorBytes(LayerKind::Relu), 0u);
  EXPECT_EQ(descriptorBytes(LayerKind::BatchNorm), sizeof(BatchNormDesc));
}

TEST(LayerDesc, EveryKindRoundTripsThroughText) {
  for (int64_t id = 0; std::optional<LayerKind> kind = layerKindOf(id); ++id) {
    LayerDescriptor d;
    d.kind = *kind;
    // Distinct values in every word: integers, or floats with many digits.
    size_t words = descriptorBytes(*kind) / 8, next = 0;
    for (const DescField &f : descriptorFields(*kind))
      for (int i = 0; i < f.count; ++i, ++next) {
        uint64_t w;
        if (f.isFloat) {
          double v = 0.1 + 1.0 / double(next + 3);
          __builtin_memcpy(&w, &v, 8);
        } else {
          w = uint64_t(int64_t(next) * 7 - 3);
        }
        d.words.push_back(w);
      }
    ASSERT_EQ(d.words.size(), words);
    LayerDescriptor back;
    std::string error;
    ASSERT_TRUE(descriptorFromText(*kind, descriptorToText(d), back, error))
        << layerKindName(*kind) << ": " << error;
    EXPECT_EQ(back.words, d.words) << layerKindName(*kind);
    EXPECT_EQ(layerKindNamed(layerKindName(*kind)), kind);
  }
  EXPECT_FALSE(layerKindOf(-1));
  EXPECT_FALSE(layerKindNamed("conv3d"));
}

TEST(LayerDesc, AWrongFieldIsNamed) {
  LayerDescriptor d;
  std::string error;
  EXPECT_FALSE(
      descriptorFromText(LayerKind::Linear, "out_features=3", d, error));
  EXPECT_EQ(error, "field 'bias' of linear is missing");
  EXPECT_FALSE(descriptorFromText(LayerKind::Linear,
                                  "out_features=3;bias=1;bias=0", d, error));
  EXPECT_EQ(error, "field 'bias' is not a field of linear (given twice)");
  EXPECT_FALSE(descriptorFromText(LayerKind::Dropout, "ratio=x", d, error));
  EXPECT_EQ(error, "field 'ratio' needs 1 number");
  EXPECT_TRUE(descriptorFromText(LayerKind::Relu, "", d, error)) << error;
}
