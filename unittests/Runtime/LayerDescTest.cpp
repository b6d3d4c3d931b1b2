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
  LayerDescriptor d = LayerDescriptor::of(conv);
  EXPECT_EQ(d.kind, LayerKind::Conv2d);
  EXPECT_EQ(int64_t(d.bytes()),
            layerKindInfo(LayerKind::Conv2d).descriptorBytes());
  EXPECT_EQ(d.bytes(), sizeof(Conv2dDesc));
  EXPECT_EQ(descriptorToText(d), "out_channels=64;kernel=3,5;stride=1,2;"
                                 "padding=1,2,3,4;dilation=1,1;groups=8;"
                                 "bias=1");
  EXPECT_EQ(d.as<Conv2dDesc>().padding[3], 4);
  EXPECT_THROW(d.as<LinearDesc>(), std::logic_error);
  EXPECT_EQ(layerKindInfo(LayerKind::Relu).descriptorBytes(), 0);
  EXPECT_EQ(layerKindInfo(LayerKind::BatchNorm).descriptorBytes(),
            int64_t(sizeof(BatchNormDesc)));
  // The table's statistics groups: batch norm per channel, the loss per
  // sample, every other kind none.
  EXPECT_EQ(layerKindInfo(LayerKind::BatchNorm).statisticsPerDims, 0x2u);
  EXPECT_EQ(layerKindInfo(LayerKind::SoftmaxCrossEntropy).statisticsPerDims,
            0x1u);
  EXPECT_EQ(layerKindInfo(LayerKind::Conv2d).statisticsPerDims, 0u);
}

TEST(LayerDesc, EveryKindRoundTripsThroughText) {
  int kinds = 0;
  for (const LayerKindInfo &info : kLayerKinds) {
    LayerDescriptor d;
    d.kind = info.kind;
    // Distinct values in every word: integers, or floats with many digits.
    size_t next = 0;
    for (int f = 0; f < info.fieldCount; ++f)
      for (int i = 0; i < info.fields[f].count; ++i, ++next) {
        uint64_t w;
        if (info.fields[f].isFloat) {
          double v = 0.1 + 1.0 / double(next + 3);
          std::memcpy(&w, &v, 8);
        } else {
          w = uint64_t(int64_t(next) * 7 - 3);
        }
        d.words.push_back(w);
      }
    ASSERT_EQ(int64_t(d.bytes()), info.descriptorBytes()) << info.name;
    LayerDescriptor back;
    std::string error;
    ASSERT_TRUE(descriptorFromText(info.kind, descriptorToText(d), back, error))
        << info.name << ": " << error;
    EXPECT_EQ(back.words, d.words) << info.name;
    EXPECT_EQ(findLayerKindNamed(info.name), &info);
    EXPECT_EQ(findLayerKind(int64_t(info.kind)), &info);
    ++kinds;
  }
  // Every kind of the table, counted from the table itself.
  constexpr int kTableKinds = 0
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics) +1
#include "hdrt/LayerKinds.def"
      ;
  EXPECT_EQ(kinds, kTableKinds);
  EXPECT_FALSE(findLayerKind(-1));
  EXPECT_FALSE(findLayerKindNamed("conv3d"));
}

TEST(LayerDesc, AWrongFieldIsNamed) {
  LayerDescriptor d;
  std::string error;
  auto parse = [&](LayerKind kind, const std::string &text) {
    bool ok = descriptorFromText(kind, text, d, error);
    return ok ? std::string("ok") : error;
  };
  EXPECT_EQ(parse(LayerKind::Linear, "out_features=3"),
            "field 'bias' of linear is missing");
  EXPECT_EQ(parse(LayerKind::Linear, "out_features=3;bias=1;bias=0"),
            "field 'bias' of linear is given twice");
  EXPECT_EQ(parse(LayerKind::Linear, "out_feature=3;bias=1"),
            "field 'out_feature' is not a field of linear");
  EXPECT_EQ(parse(LayerKind::Linear, "out_features;bias=1"),
            "field 'out_features' has no value (out_features=1 integer)");
  EXPECT_EQ(
      parse(LayerKind::Linear, "out_features=99999999999999999999;bias=1"),
      "field 'out_features' needs 1 integer");
  EXPECT_EQ(parse(LayerKind::Dropout, "ratio=x"),
            "field 'ratio' needs 1 number");
  EXPECT_EQ(parse(LayerKind::Conv2d,
                  "out_channels=1;kernel=3;stride=1,1;padding=0,0,0,0;"
                  "dilation=1,1;groups=1;bias=0"),
            "field 'kernel' needs 2 integers");
  EXPECT_EQ(parse(LayerKind::Relu, ""), "ok");
}
