/* A stand-in for Windows's bcryptprimitives.dll, for running Windows builds under wine only:
 * never shipped. Rust's standard library (1.78 and later) takes its random bytes from that DLL's
 * ProcessPrng, which wine 8.0 (Debian 12's) lacks, so no Rust program or DLL starts there without
 * it. ProcessPrng is given here on top of BCryptGenRandom, which wine has. Built with MinGW:
 *   x86_64-w64-mingw32-gcc -O2 -shared -o bcryptprimitives.dll bcryptprimitives.c -lbcrypt
 * and placed beside the program, or in a folder on WINEPATH. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  /* BCryptGenRandom takes a ULONG length: larger requests go in pieces. */
  while (length > 0) {
    ULONG piece = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, piece, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) return FALSE;
    data += piece;
    length -= piece;
  }
  return TRUE;
}
