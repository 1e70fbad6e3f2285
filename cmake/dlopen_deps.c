/* Linked with the libraries covkit loads with dlopen (Graphviz, Zydis, mimalloc, libbz2, liblzma)
   and never run: dpkg-shlibdeps reads its NEEDED entries, which covkit's own
   executable does not have, to give the Debian package their Depends
   (cmake/deb_package.cmake). */
int main(void) { return 0; }
