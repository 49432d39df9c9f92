#!/usr/bin/env python3
"""Every module of this package a target imports is a dependency it declares in Package.swift, so a layer's
imports are what the manifest says it uses. SwiftPM's own --explicit-target-dependency-import-check does not
catch a module reached only through another dependency on Linux (swiftlang/swift issue 70560; a three-target
package whose third target imports the first through the second builds clean with it), so this checks the
sources themselves."""
import glob, os, re, unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)", re.M)


def manifest(text):
    """Each target's name, its folder and its declared dependencies; the system libraries' names."""
    targets = {}
    for m in re.finditer(r'\.(target|executableTarget|testTarget)\(name: "(\w+)"((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)', text):
        body = m.group(3)
        dependencies = re.search(r"dependencies: \[((?:[^\[\]]|\[[^\[\]]*\])*)\]", body)
        path = re.search(r'path: "([^"]+)"', body)
        targets[m.group(2)] = (path.group(1) if path else f"Sources/{m.group(2)}",
                               set(re.findall(r'"(\w+)"', dependencies.group(1))) if dependencies else set())
    system = set(re.findall(r'\.systemLibrary\(name: "(\w+)"', text))
    return targets, system


def undeclared(root):
    with open(os.path.join(root, "Package.swift")) as f:
        targets, system = manifest(f.read())
    modules = set(targets) | system
    found = {}
    for name, (path, dependencies) in targets.items():
        for source in glob.glob(os.path.join(root, path, "**", "*.swift"), recursive=True):
            with open(source) as f:
                for module in IMPORT.findall(f.read()):
                    if module in modules and module != name and module not in dependencies:
                        found.setdefault(name, set()).add(module)
    return targets, found


class Imports(unittest.TestCase):
    def test_every_imported_module_of_the_package_is_declared(self):
        targets, found = undeclared(ROOT)
        self.assertGreaterEqual(len(targets), 15)
        self.assertEqual(found, {}, "targets import modules they do not declare in Package.swift")

    def test_an_undeclared_import_is_found(self):
        import shutil, tempfile
        with tempfile.TemporaryDirectory() as scratch:
            shutil.copy(os.path.join(ROOT, "Package.swift"), scratch)
            folder = os.path.join(scratch, "Sources", "Reporting")
            os.makedirs(folder)
            with open(os.path.join(folder, "X.swift"), "w") as f:
                f.write("import Foundation\n@testable import DSP\nimport struct CKernels.Thing\n")
            _, found = undeclared(scratch)
            self.assertEqual(found, {"Reporting": {"DSP", "CKernels"}})


if __name__ == "__main__":
    unittest.main(verbosity=2)
