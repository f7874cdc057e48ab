// EXIT: 2
// A Python script saved with a .cu name.
// CHECK: error: unknown type name 'import' [clang-diagnostic-error]
// CHECK: error: expected ';' after top level declarator [clang-diagnostic-error]
import sys
def main():
    print("hello")
