// Uploads files to a container of Azurite with Microsoft's own client
// (@azure/storage-blob), as users upload: a file up to 4 MiB in one Put
// Blob (the service records its Content-MD5), a larger one in blocks (Put
// Block, Put Block List: no Content-MD5 unless the client sends one).
//   node azurite-upload.js ACCOUNT_URL CONTAINER NAME FILE [NAME FILE...]
const fs = require("fs");
const { BlobServiceClient, StorageSharedKeyCredential } = require("@azure/storage-blob");

// Azurite's well-known development account (public, in Azurite's documentation).
const ACCOUNT = "devstoreaccount1";
const KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const ONE_PUT_MAX = 4 << 20;

const [url, container, ...pairs] = process.argv.slice(2);
const service = new BlobServiceClient(url, new StorageSharedKeyCredential(ACCOUNT, KEY));
(async () => {
  const client = service.getContainerClient(container);
  await client.createIfNotExists();
  for (let i = 0; i < pairs.length; i += 2) {
    const data = fs.readFileSync(pairs[i + 1]);
    const blob = client.getBlockBlobClient(pairs[i]);
    if (data.length > ONE_PUT_MAX) {
      await blob.uploadData(data, { blockSize: ONE_PUT_MAX, maxSingleShotSize: ONE_PUT_MAX });
    } else {
      await blob.upload(data, data.length);
    }
  }
})().catch((e) => {
  console.error(`azurite-upload: ${e.message}`);
  process.exit(1);
});
