# Sphinx configuration of the CUDA Workbook's site: Sphinx + MyST (Markdown
# pages, including the labs' handouts), Breathe (the API from Doxygen's XML),
# Furo (the theme), sphinx-copybutton, and graphviz for the diagrams.
# Build it with ./workbook docs (tools/build_docs.py); docs/README.md explains.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

project = "CUDA Workbook"
author = "The CUDA Workbook contributors"
copyright = "the CUDA Workbook contributors"

extensions = [
    "myst_parser",
    "breathe",
    "sphinx_copybutton",
    "sphinx.ext.graphviz",
    "workbook_docs",  # docs/_ext: Doxygen run, generated lab pages, repository links
]

# A site for students has no walkthrough and no solution code: the tag
# "student", which tools/build_docs.py --student passes (-t student) and which
# a tree without reference solutions (tools/release_student_tree.sh drops
# solutions/) gets here. Pages use {only} blocks on it; _ext/workbook_docs.py
# leaves the walkthrough sections out.
_solutions = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "solutions")
if not (os.path.isdir(_solutions) and any(name.endswith(".cu") for _, _, files in os.walk(_solutions)
                                           for name in files)):
    tags.add("student")  # noqa: F821 (Sphinx defines tags for conf.py)

source_suffix = {".md": "markdown"}
root_doc = "index"
# README.md is the note for contributors; walkthroughs and the lab map are
# included into generated pages, never built as pages of their own.
exclude_patterns = ["README.md", "walkthroughs/**", "labs/_*.md", "diagrams/**", "_ext/**"]

# MyST: handouts use GitHub-flavoured Markdown (tables are built in); the
# site's own pages use ::: fences and definition lists. Heading anchors make
# [text](#a-heading) links of the handouts work.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Smart quotes curl quotes and apostrophes, but must not turn "--" into a dash:
# prose is full of command options ("--solutions"), and a dash pasted into a
# terminal is no option. q: quotes, e: ellipses; D (dashes) left out.
smartquotes_action = "qe"

# No warning is suppressed. Links from handouts to files outside docs/
# (e.g. [abc.cuh](abc.cuh)) are resolved by _ext/workbook_docs.py instead of
# silenced; a link to a file that does not exist stays an error under -W.
suppress_warnings = []

# Code: CUDA is Pygments' `cuda` lexer; fences without a language are plain text
# (terminal output in the handouts), not guessed.
highlight_language = "text"
pygments_style = "friendly"
pygments_dark_style = "monokai"

# CUDA in the C++ domain: the execution-space keywords are attributes Sphinx
# must accept in front of a declaration (Doxygen keeps them in the signature);
# attributes with arguments are blanked by Doxyfile's PREDEFINED and listed
# here too, for declarations written by hand.
cpp_id_attributes = ["__global__", "__device__", "__host__", "__forceinline__", "__noinline__",
                     "__shared__", "__constant__", "__managed__",
                     "WORKBOOK_HOST_DEVICE"]  # workbook/random.hpp: __host__ __device__ under nvcc
cpp_paren_attributes = ["__launch_bounds__", "__align__"]

# Nitpicky (tools/build_docs.py passes -n): every reference must resolve, so a
# name of the API that would render as plain text fails the build. The names
# below cannot resolve here, on purpose: they belong to CUDA's runtime and
# vector types and to GoogleTest, whose headers Doxygen does not read (the
# site documents the workbook, not those libraries).
nitpick_ignore = [("cpp:identifier", name) for name in
                  ("cudaStream_t", "cudaError_t", "cudaEvent_t", "cudaDeviceProp", "dim3",
                   "float2", "float3", "float4", "int2", "int3", "int4", "uint2", "uint3", "uint4")]
nitpick_ignore_regex = [(r"cpp:identifier", r"(::)?testing(::.*)?")]

# Breathe: the project is set by the extension once Doxygen has run.
breathe_projects = {}
breathe_default_project = "workbook"
breathe_domain_by_extension = {"cuh": "cpp", "hpp": "cpp", "cu": "cpp", "h": "cpp"}
breathe_show_include = True

graphviz_output_format = "svg"
graphviz_dot_args = ["-Gfontname=sans-serif", "-Nfontname=sans-serif", "-Efontname=sans-serif"]

copybutton_prompt_text = r"\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = False

html_theme = "furo"
html_title = "CUDA Workbook"
html_static_path = ["_static"]
html_css_files = ["workbook.css"]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": True,
}
