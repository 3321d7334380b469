"""Other names of things the gazetteer knows: short forms (Postgres, k8s, NYC, 阿里) and the other
script's name (ByteDance / 字节跳动, Beijing / 北京). Hand-written, small; resolution reads them after
the normalised name. Each line: the names of one thing, the first the one resolution keeps."""

from __future__ import annotations

from functools import cache

from .names import normalise_name

_GROUPS = """
PostgreSQL|Postgres|psql
Kubernetes|k8s|kube
Visual Studio Code|VS Code|VSCode
JavaScript|JS
TypeScript|TS
Amazon Web Services|AWS
Google Cloud|GCP|Google Cloud Platform
Microsoft Azure|Azure
GitHub|Github
New York City|NYC|New York
Los Angeles|LA
San Francisco|SF
Washington DC|DC|Washington D.C.
United States|US|USA|America|美国
United Kingdom|UK|Britain|英国
Meta|Facebook Inc
字节跳动|字节|ByteDance
阿里巴巴|阿里|Alibaba
腾讯|Tencent
百度|Baidu
华为|Huawei
小米|Xiaomi
京东|JD|JD.com
美团|Meituan
网易|NetEase
拼多多|PDD|Pinduoduo
微信|WeChat
支付宝|Alipay
抖音|Douyin
哔哩哔哩|B站|Bilibili
北京|Beijing|北京市
上海|Shanghai|上海市
广州|Guangzhou|广州市
深圳|Shenzhen|深圳市
杭州|Hangzhou|杭州市
成都|Chengdu|成都市
香港|Hong Kong|HK
台北|Taipei
东京|Tokyo
北京大学|北大|Peking University|PKU
清华大学|清华|Tsinghua|Tsinghua University
复旦大学|复旦|Fudan|Fudan University
浙江大学|浙大|Zhejiang University
上海交通大学|上海交大|交大|SJTU
中国科学院|中科院|CAS
"""


@cache
def alias_keys() -> dict[str, frozenset[str]]:
    """Normalised name -> the normalised names of everything it may be (itself included)."""
    table: dict[str, set[str]] = {}
    for line in _GROUPS.strip().splitlines():
        keys = {normalise_name(n) for n in line.split("|")}
        for key in keys:
            table.setdefault(key, set()).update(keys)
    return {key: frozenset(keys) for key, keys in table.items()}
