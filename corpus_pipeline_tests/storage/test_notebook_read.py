"""The notebook read of an s3:// warehouse, as docs/how-to/read-in-a-notebook.md writes it: polars takes the
endpoint and region in ``storage_options`` and the keys from the AWS environment variables."""

from __future__ import annotations

import io

import boto3
import polars as pl


def test_the_readme_s_polars_read_of_s3_finds_every_website_with_keys_from_the_environment(loopback_s3, bucket):
    client = boto3.client("s3", endpoint_url=loopback_s3.endpoint_url, region_name="us-east-1")
    for website, lang in (("demo", "fr"), ("docs", "en")):
        body = io.BytesIO()
        pl.DataFrame({"url": [f"http://{website}.test/"], "lang": [lang], "content": ["text"]}).write_parquet(body)
        client.put_object(Bucket=bucket, Key=f"nightly/corpus/website={website}/data.parquet", Body=body.getvalue())

    corpus = pl.scan_parquet(
        f"s3://{bucket}/nightly/corpus/**/*.parquet",
        hive_partitioning=True,
        storage_options={"aws_region": "us-east-1", "aws_endpoint_url": loopback_s3.endpoint_url,
                         "aws_allow_http": "true"},
    )
    french = corpus.filter(pl.col("lang") == "fr").select("website", "url").collect()

    assert french.rows() == [("demo", "http://demo.test/")]
