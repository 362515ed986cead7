"""Deduplication defaults."""

# URL substrings whose records never reach the corpus (the reference list, plus /register).
DEFAULT_URLS_TO_IGNORE: tuple[str, ...] = (
    "/tag/", "/tags/", "/category/", "/categories/", "/author/", "/authors/", "/profil/", "/profiles/", "/user/",
    "/users/", "/login/", "/signup/", "/member/", "/members/", "/cart/", "/shop/", "/register",
)

DEFAULT_THRESHOLD = 0.9
