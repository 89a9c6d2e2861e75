"""The published key-design guides the rules and checks cite, by the short name their docs use."""

#: Short name -> the guide: title, publisher or author, and what it is.
GUIDES = {
    "OneUptime's guide": 'OneUptime blog, "Redis Key Design and Naming Conventions": patterns, anti-patterns, TTLs',
    "the layered naming spec": '"Redis Key naming specification", a team convention published as a blog article: '
                               "<module>:<submodule>:<description>:<identifier>, lowercase, underscores, no "
                               "abbreviations",
    "Baidu Cloud's guidelines": 'Baidu Cloud product documentation, "Redis key设计规范" (Redis key design '
                                "guidelines): key and value sizes, hash tags, big keys",
    "Mastering Redis": 'Jeremy Nelson, "Mastering Redis" (Packt), the section "Redis keys": key schemas '
                       "and delimiters",
    "the Key Design chapter": '"Key Design and Data Modeling: Avoiding All Common Pitfalls", chapter 30 of an '
                              "online Redis book: naming, big keys, hot keys, cluster skew, TTL design",
}
