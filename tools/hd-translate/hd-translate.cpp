//===- hd-translate.cpp - hd's translation driver -------------------------===//

#include "hd/InitAll.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  hd::registerAllTranslations();
  if (!hd::checkHelpLikeArguments(argc, argv, "hd-translate",
                                  hd::isTranslationName))
    return 1;
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "hd translation driver\n"));
}
