# -*- Python -*-
# Runs hd's GoogleTest unit tests as lit tests, one lit test per gtest case.

import os

import lit.formats

config.name = "hd-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.hd_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

import sys
sys.path.insert(0, os.path.join(config.hd_src_root, "test", "sanitizers"))
import lit_sanitizers
lit_sanitizers.configure(config)
